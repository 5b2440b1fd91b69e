//! A state of one of seed 004's Gymnasium environments drawn on a canvas, from its observation as
//! numbers (`GymObs::values`): CliffWalking's and Taxi's grids, Blackjack's cards, the cart and
//! pole, the car on the hill, the two links. The caption under it says the same in words.

use engine::gym::GymId;
use leptos::prelude::*;
use wasm_bindgen::JsCast;
use web_sys::{CanvasRenderingContext2d, HtmlCanvasElement};

const WIDTH: f64 = 480.0;
const HEIGHT: f64 = 240.0;
const AGENT: &str = "#1a73e8";
const INK: &str = "#202124";
const GROUND: &str = "#5f6368";
const GOAL: &str = "#188038";

/// Gymnasium's Taxi map: the walls on a cell's east side, by row (`|` in its text map).
const TAXI_EAST_WALLS: [&[usize]; 5] = [&[1], &[1], &[], &[0, 2], &[0, 2]];
/// Taxi's landmarks R, G, Y and B (row, column).
const TAXI_LANDMARKS: [(&str, usize, usize); 4] = [("R", 0, 0), ("G", 0, 4), ("Y", 4, 0), ("B", 4, 3)];

/// Taxi's state index as (taxi row, taxi column, passenger 0–4 (4: in the taxi), destination 0–3).
fn taxi_decode(state: usize) -> (usize, usize, usize, usize) {
    let (rest, destination) = (state / 4, state % 4);
    let (cell, passenger) = (rest / 5, rest % 5);
    (cell / 5, cell % 5, passenger, destination)
}

/// The state in words, for the caption and screen readers.
pub fn describe(env: GymId, values: &[f64]) -> String {
    let at = |i: usize| values.get(i).copied().unwrap_or(0.0);
    match env {
        GymId::CliffWalking => {
            let s = at(0) as usize;
            format!("row {}, column {}", s / 12, s % 12)
        }
        GymId::Taxi => {
            let (row, column, passenger, destination) = taxi_decode(at(0) as usize);
            let landmark = |i: usize| TAXI_LANDMARKS.get(i).map_or("the taxi", |l| l.0);
            format!(
                "taxi at row {row}, column {column}; passenger at {}; destination {}",
                landmark(passenger),
                landmark(destination)
            )
        }
        GymId::Blackjack => format!(
            "player's sum {}, dealer shows {}, usable ace: {}",
            at(0),
            if at(1) == 1.0 { "an ace".to_owned() } else { at(1).to_string() },
            if at(2) == 1.0 { "yes" } else { "no" }
        ),
        GymId::CartPole => format!(
            "cart at x = {:.3}, velocity {:.3}; pole at {:.1}°, angular velocity {:.3}",
            at(0),
            at(1),
            at(2).to_degrees(),
            at(3)
        ),
        GymId::MountainCar => format!("position {:.3}, velocity {:.4}; the flag is at 0.5", at(0), at(1)),
        GymId::Acrobot => {
            let (first, second) = (at(1).atan2(at(0)), at(3).atan2(at(2)));
            let height = -first.cos() - (first + second).cos();
            format!(
                "θ1 = {:.1}°, θ2 = {:.1}°; the tip is at height {height:.2} (the line is at 1)",
                first.to_degrees(),
                second.to_degrees()
            )
        }
    }
}

fn context(canvas: &HtmlCanvasElement) -> Option<CanvasRenderingContext2d> {
    canvas.get_context("2d").ok().flatten()?.dyn_into::<CanvasRenderingContext2d>().ok()
}

fn line(ctx: &CanvasRenderingContext2d, from: (f64, f64), to: (f64, f64)) {
    ctx.begin_path();
    ctx.move_to(from.0, from.1);
    ctx.line_to(to.0, to.1);
    ctx.stroke();
}

fn disc(ctx: &CanvasRenderingContext2d, (x, y): (f64, f64), radius: f64, colour: &str) {
    ctx.set_fill_style_str(colour);
    ctx.begin_path();
    let _ = ctx.arc(x, y, radius, 0.0, std::f64::consts::TAU);
    ctx.fill();
}

fn label(ctx: &CanvasRenderingContext2d, text: &str, (x, y): (f64, f64), size: u32, colour: &str) {
    ctx.set_fill_style_str(colour);
    ctx.set_font(&format!("{size}px sans-serif"));
    ctx.set_text_align("center");
    ctx.set_text_baseline("middle");
    let _ = ctx.fill_text(text, x, y);
}

/// A grid of `rows` × `columns` square cells centred on the canvas: its origin and cell size.
fn grid(ctx: &CanvasRenderingContext2d, rows: usize, columns: usize) -> ((f64, f64), f64) {
    let cell = (WIDTH / columns as f64).min((HEIGHT - 20.0) / rows as f64);
    let origin = ((WIDTH - cell * columns as f64) / 2.0, (HEIGHT - cell * rows as f64) / 2.0);
    ctx.set_stroke_style_str("#dadce0");
    ctx.set_line_width(1.0);
    for row in 0..=rows {
        let y = origin.1 + cell * row as f64;
        line(ctx, (origin.0, y), (origin.0 + cell * columns as f64, y));
    }
    for column in 0..=columns {
        let x = origin.0 + cell * column as f64;
        line(ctx, (x, origin.1), (x, origin.1 + cell * rows as f64));
    }
    (origin, cell)
}

fn cliff_walking(ctx: &CanvasRenderingContext2d, state: usize) {
    let ((x0, y0), cell) = grid(ctx, 4, 12);
    let centre = |row: usize, column: usize| (x0 + cell * (column as f64 + 0.5), y0 + cell * (row as f64 + 0.5));
    ctx.set_fill_style_str("#795548");
    ctx.fill_rect(x0 + cell, y0 + 3.0 * cell, 10.0 * cell, cell);
    label(ctx, "the cliff", centre(3, 6), 14, "#ffffff");
    label(ctx, "S", centre(3, 0), 16, INK);
    label(ctx, "G", centre(3, 11), 16, GOAL);
    disc(ctx, centre(state / 12, state % 12), cell * 0.3, AGENT);
}

fn taxi(ctx: &CanvasRenderingContext2d, state: usize) {
    let (row, column, passenger, destination) = taxi_decode(state);
    let ((x0, y0), cell) = grid(ctx, 5, 5);
    let centre = |row: usize, column: usize| (x0 + cell * (column as f64 + 0.5), y0 + cell * (row as f64 + 0.5));
    for (index, &(name, r, c)) in TAXI_LANDMARKS.iter().enumerate() {
        let colour = if index == destination { GOAL } else { GROUND };
        let (x, y) = centre(r, c);
        ctx.set_stroke_style_str(colour);
        ctx.set_line_width(if index == destination { 3.0 } else { 1.0 });
        ctx.stroke_rect(x - cell * 0.45, y - cell * 0.45, cell * 0.9, cell * 0.9);
        label(ctx, name, (x, y - cell * 0.3), 12, colour);
    }
    ctx.set_stroke_style_str(INK);
    ctx.set_line_width(4.0);
    ctx.stroke_rect(x0, y0, cell * 5.0, cell * 5.0);
    for (r, walls) in TAXI_EAST_WALLS.iter().enumerate() {
        for &c in walls.iter() {
            let x = x0 + cell * (c as f64 + 1.0);
            line(ctx, (x, y0 + cell * r as f64), (x, y0 + cell * (r as f64 + 1.0)));
        }
    }
    let (x, y) = centre(row, column);
    ctx.set_fill_style_str(if passenger == 4 { GOAL } else { "#f9ab00" });
    ctx.fill_rect(x - cell * 0.3, y - cell * 0.18, cell * 0.6, cell * 0.36);
    if let Some(&(_, r, c)) = TAXI_LANDMARKS.get(passenger) {
        disc(ctx, centre(r, c), cell * 0.12, AGENT);
    }
}

fn card(ctx: &CanvasRenderingContext2d, (x, y): (f64, f64), text: &str, caption: &str) {
    ctx.set_fill_style_str("#ffffff");
    ctx.fill_rect(x - 40.0, y - 55.0, 80.0, 110.0);
    ctx.set_stroke_style_str(INK);
    ctx.set_line_width(2.0);
    ctx.stroke_rect(x - 40.0, y - 55.0, 80.0, 110.0);
    label(ctx, text, (x, y), 34, INK);
    label(ctx, caption, (x, y + 75.0), 14, GROUND);
}

fn blackjack(ctx: &CanvasRenderingContext2d, values: &[f64]) {
    let (sum, dealer, ace) = (values[0], values[1], values.get(2).copied().unwrap_or(0.0));
    let dealer = if dealer == 1.0 { "A".to_owned() } else { format!("{dealer}") };
    card(ctx, (150.0, 110.0), &format!("{sum}"), if ace == 1.0 { "your sum (usable ace)" } else { "your sum" });
    card(ctx, (330.0, 110.0), &dealer, "the dealer shows");
}

fn cart_pole(ctx: &CanvasRenderingContext2d, values: &[f64]) {
    // Gymnasium's frame: x in ±2.4 across the width, the pole 1 unit long (twice its half-length).
    let scale = WIDTH / 4.8;
    let track = 180.0;
    ctx.set_stroke_style_str(GROUND);
    ctx.set_line_width(2.0);
    line(ctx, (0.0, track), (WIDTH, track));
    let x = WIDTH / 2.0 + values[0] * scale;
    ctx.set_fill_style_str(INK);
    ctx.fill_rect(x - 25.0, track - 12.0, 50.0, 24.0);
    let angle = values[2];
    ctx.set_stroke_style_str("#e37400");
    ctx.set_line_width(8.0);
    line(ctx, (x, track - 8.0), (x + scale * angle.sin(), track - 8.0 - scale * angle.cos()));
    disc(ctx, (x, track - 8.0), 5.0, AGENT);
}

fn mountain_car(ctx: &CanvasRenderingContext2d, values: &[f64]) {
    // Gymnasium's frame: positions −1.2 to 0.6, heights sin(3x)·0.45 + 0.55.
    let to_canvas = |position: f64| {
        let height = (3.0 * position).sin() * 0.45 + 0.55;
        ((position + 1.2) / 1.8 * WIDTH, HEIGHT - 15.0 - height * (HEIGHT - 70.0))
    };
    ctx.set_stroke_style_str(GROUND);
    ctx.set_line_width(2.0);
    ctx.begin_path();
    for i in 0..=100 {
        let (x, y) = to_canvas(-1.2 + 1.8 * f64::from(i) / 100.0);
        if i == 0 { ctx.move_to(x, y) } else { ctx.line_to(x, y) }
    }
    ctx.stroke();
    let (fx, fy) = to_canvas(0.5);
    ctx.set_stroke_style_str(INK);
    line(ctx, (fx, fy), (fx, fy - 40.0));
    ctx.set_fill_style_str(GOAL);
    ctx.fill_rect(fx, fy - 40.0, 22.0, 12.0);
    let (x, y) = to_canvas(values[0]);
    disc(ctx, (x, y - 9.0), 9.0, AGENT);
}

fn acrobot(ctx: &CanvasRenderingContext2d, values: &[f64]) {
    // Gymnasium's drawing: two links of length 1 hanging from the pivot, the goal line at height 1.
    let scale = (HEIGHT - 20.0) / 4.4;
    let pivot = (WIDTH / 2.0, HEIGHT / 2.0);
    let (first, second) = (values[1].atan2(values[0]), values[3].atan2(values[2]));
    let point = |(x, y): (f64, f64), angle: f64| (x + scale * angle.sin(), y + scale * angle.cos());
    let elbow = point(pivot, first);
    let tip = point(elbow, first + second);
    ctx.set_stroke_style_str(GOAL);
    ctx.set_line_width(1.0);
    line(ctx, (pivot.0 - 2.2 * scale, pivot.1 - scale), (pivot.0 + 2.2 * scale, pivot.1 - scale));
    ctx.set_stroke_style_str(INK);
    ctx.set_line_width(8.0);
    line(ctx, pivot, elbow);
    ctx.set_stroke_style_str("#e37400");
    line(ctx, elbow, tip);
    disc(ctx, pivot, 5.0, AGENT);
    disc(ctx, elbow, 5.0, AGENT);
}

fn draw(canvas: &HtmlCanvasElement, env: GymId, values: &[f64]) {
    let Some(ctx) = context(canvas) else { return };
    ctx.clear_rect(0.0, 0.0, WIDTH, HEIGHT);
    let wanted = match env {
        GymId::CliffWalking | GymId::Taxi => 1,
        GymId::Blackjack => 3,
        GymId::CartPole => 4,
        GymId::MountainCar => 2,
        GymId::Acrobot => 6,
    };
    if values.len() < wanted {
        return label(&ctx, "no state to draw", (WIDTH / 2.0, HEIGHT / 2.0), 14, GROUND);
    }
    match env {
        GymId::CliffWalking => cliff_walking(&ctx, values[0] as usize),
        GymId::Taxi => taxi(&ctx, values[0] as usize),
        GymId::Blackjack => blackjack(&ctx, values),
        GymId::CartPole => cart_pole(&ctx, values),
        GymId::MountainCar => mountain_car(&ctx, values),
        GymId::Acrobot => acrobot(&ctx, values),
    }
}

/// `env`'s state `observation` on a canvas, redrawn when it changes, with its description.
#[component]
pub fn GymCanvas(env: GymId, #[prop(into)] observation: Signal<Vec<f64>>) -> impl IntoView {
    let canvas = NodeRef::<leptos::html::Canvas>::new();
    Effect::new(move |_| {
        let values = observation.get();
        if let Some(canvas) = canvas.get() {
            draw(&canvas, env, &values);
        }
    });
    let numbers = move || observation.with(|v| v.iter().map(|x| format!("{x}")).collect::<Vec<_>>().join(","));
    let words = move || observation.with(|v| describe(env, v));
    view! {
        <figure class="gym-view">
            <canvas node_ref=canvas class="gym-canvas" width=WIDTH height=HEIGHT data-env=env.name() data-observation=numbers role="img" aria-label=words></canvas>
            <figcaption class="gym-caption">{words}</figcaption>
        </figure>
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn states_are_described_as_gymnasium_encodes_them() {
        // Taxi 328: ((3·5 + 1)·5 + 2)·4 + 0, Gymnasium's documented example.
        assert_eq!(taxi_decode(328), (3, 1, 2, 0));
        assert_eq!(describe(GymId::Taxi, &[328.0]), "taxi at row 3, column 1; passenger at Y; destination R");
        assert_eq!(describe(GymId::CliffWalking, &[36.0]), "row 3, column 0");
        assert_eq!(
            describe(GymId::Blackjack, &[15.0, 1.0, 0.0]),
            "player's sum 15, dealer shows an ace, usable ace: no"
        );
        // Acrobot hanging down: both angles 0, the tip at height −2.
        assert_eq!(
            describe(GymId::Acrobot, &[1.0, 0.0, 1.0, 0.0, 0.0, 0.0]),
            "θ1 = 0.0°, θ2 = 0.0°; the tip is at height -2.00 (the line is at 1)"
        );
    }
}
