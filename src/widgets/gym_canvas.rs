//! A state of one of seed 004's Gymnasium environments on a canvas: the engine draws it from the
//! observation as numbers (`GymId::scene`, each environment's `Gymnasium::draw`) and says it in
//! words (`GymId::describe`) for the caption; this paints the shapes.

use engine::gym::GymId;
use engine::gym::scene::{self, Scene, Shape};
use leptos::prelude::*;
use wasm_bindgen::JsCast;
use web_sys::{CanvasRenderingContext2d, HtmlCanvasElement};

fn context(canvas: &HtmlCanvasElement) -> Option<CanvasRenderingContext2d> {
    canvas.get_context("2d").ok().flatten()?.dyn_into::<CanvasRenderingContext2d>().ok()
}

fn paint(ctx: &CanvasRenderingContext2d, shape: &Shape) {
    match shape {
        Shape::Line { points, width, colour } => {
            ctx.set_stroke_style_str(colour);
            ctx.set_line_width(*width);
            ctx.begin_path();
            for (i, &(x, y)) in points.iter().enumerate() {
                if i == 0 { ctx.move_to(x, y) } else { ctx.line_to(x, y) }
            }
            ctx.stroke();
        }
        Shape::Disc { centre: (x, y), radius, colour } => {
            ctx.set_fill_style_str(colour);
            ctx.begin_path();
            let _ = ctx.arc(*x, *y, *radius, 0.0, std::f64::consts::TAU);
            ctx.fill();
        }
        Shape::Rect { corner: (x, y), size: (w, h), colour, outline: None } => {
            ctx.set_fill_style_str(colour);
            ctx.fill_rect(*x, *y, *w, *h);
        }
        Shape::Rect { corner: (x, y), size: (w, h), colour, outline: Some(width) } => {
            ctx.set_stroke_style_str(colour);
            ctx.set_line_width(*width);
            ctx.stroke_rect(*x, *y, *w, *h);
        }
        Shape::Text { text, at: (x, y), size, colour } => {
            ctx.set_fill_style_str(colour);
            ctx.set_font(&format!("{size}px sans-serif"));
            ctx.set_text_align("center");
            ctx.set_text_baseline("middle");
            let _ = ctx.fill_text(text, *x, *y);
        }
    }
}

fn draw(canvas: &HtmlCanvasElement, scene: &Scene) {
    let Some(ctx) = context(canvas) else { return };
    ctx.clear_rect(0.0, 0.0, scene::WIDTH, scene::HEIGHT);
    scene.shapes.iter().for_each(|shape| paint(&ctx, shape));
}

/// `env`'s state `observation` on a canvas, redrawn when it changes, with its description.
#[component]
pub fn GymCanvas(env: GymId, #[prop(into)] observation: Signal<Vec<f64>>) -> impl IntoView {
    let canvas = NodeRef::<leptos::html::Canvas>::new();
    Effect::new(move |_| {
        let values = observation.get();
        if let Some(canvas) = canvas.get() {
            draw(&canvas, &env.scene(&values));
        }
    });
    let numbers = move || observation.with(|v| v.iter().map(|x| format!("{x}")).collect::<Vec<_>>().join(","));
    let words = move || observation.with(|v| env.describe(v));
    view! {
        <figure class="gym-view">
            <canvas node_ref=canvas class="gym-canvas" width=scene::WIDTH height=scene::HEIGHT data-env=env.name() data-observation=numbers role="img" aria-label=words></canvas>
            <figcaption class="gym-caption">{words}</figcaption>
        </figure>
    }
}
