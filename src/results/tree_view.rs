//! The episode tree on a canvas: the prefix tree of the run's action sequences, drawn left to
//! right. Node area = visits, colour = success rate, edge label = action; the most visited path is
//! drawn bold. Drag or arrow keys pan, the wheel or +/− zoom, 0 fits; a click lists the node's
//! episodes.

use engine::EpisodeTree;
use engine::episode_tree::TreeNode;
use leptos::html::Canvas;
use leptos::prelude::*;
use wasm_bindgen::JsCast;
use web_sys::{CanvasRenderingContext2d, HtmlCanvasElement};

use crate::services::model::LIVE_EPISODE_BASE;
use crate::services::run_book::RunBook;
use crate::widgets::frame::redraw_on_change;

const COLUMN: f64 = 120.0;
const ROW: f64 = 34.0;
const MARGIN: f64 = 24.0;
/// Children with fewer visits than this share of the root's are left out, so that rare exploratory
/// branches do not drown the learned paths.
const MIN_VISIT_SHARE: f64 = 0.002;

/// A node placed in tree coordinates.
#[derive(Clone, Debug, PartialEq)]
pub struct Placed {
    pub id: u32,
    pub x: f64,
    pub y: f64,
    pub radius: f64,
    pub parent: Option<(f64, f64)>,
    pub action: Option<u8>,
    pub success_rate: f64,
    /// Visits over the root's: the edge's weight.
    pub share: f64,
    pub dominant: bool,
}

/// Places the tree's frequent nodes: depth across, leaves down in order of visits.
pub fn layout(tree: &EpisodeTree) -> Vec<Placed> {
    let root_visits = f64::from(tree.node(EpisodeTree::ROOT).visits.max(1));
    let dominant = tree.dominant_path();
    let mut placed = Vec::new();
    let mut next_row = 0.0;
    place(tree, EpisodeTree::ROOT, 0, root_visits, &dominant, &mut next_row, &mut placed);
    placed
}

/// Places node `id` and its frequent descendants; returns the node's index in `out`.
fn place(
    tree: &EpisodeTree,
    id: u32,
    depth: usize,
    root_visits: f64,
    dominant: &[u8],
    next_row: &mut f64,
    out: &mut Vec<Placed>,
) -> usize {
    let node: &TreeNode = tree.node(id);
    let share = f64::from(node.visits) / root_visits;
    let x = MARGIN + depth as f64 * COLUMN;
    let index = out.len();
    let on_dominant = depth == 0 || (depth <= dominant.len() && tree.path(id) == dominant[..depth]);
    out.push(Placed {
        id,
        x,
        y: 0.0,
        radius: 4.0 + 14.0 * share.sqrt(),
        parent: None,
        action: node.action,
        success_rate: node.success_rate(),
        share,
        dominant: on_dominant,
    });
    let mut children: Vec<u32> = node
        .children
        .iter()
        .copied()
        .filter(|&c| f64::from(tree.node(c).visits) / root_visits >= MIN_VISIT_SHARE)
        .collect();
    children.sort_by_key(|&c| std::cmp::Reverse(tree.node(c).visits));
    out[index].y = if children.is_empty() {
        *next_row += 1.0;
        MARGIN + (*next_row - 1.0) * ROW
    } else {
        // A parent sits midway between its first and last child, so it is placed after them.
        let placed: Vec<usize> =
            children.iter().map(|&c| place(tree, c, depth + 1, root_visits, dominant, next_row, out)).collect();
        let y = (out[placed[0]].y + out[placed[placed.len() - 1]].y) / 2.0;
        placed.iter().for_each(|&child| out[child].parent = Some((x, y)));
        y
    };
    index
}

/// Orange (never succeeds) to blue (always succeeds): readable with colour-blindness.
fn success_colour(rate: f64) -> String {
    let mix = |a: f64, b: f64| (a + (b - a) * rate.clamp(0.0, 1.0)).round();
    format!("rgb({}, {}, {})", mix(230.0, 0.0), mix(97.0, 114.0), mix(1.0, 178.0))
}

/// Pan and zoom: screen = tree × scale + offset.
#[derive(Clone, Copy, Debug, PartialEq)]
struct View {
    dx: f64,
    dy: f64,
    scale: f64,
}

fn fit(placed: &[Placed], width: f64, height: f64) -> View {
    let max_x = placed.iter().map(|p| p.x).fold(0.0, f64::max) + COLUMN;
    let max_y = placed.iter().map(|p| p.y).fold(0.0, f64::max) + MARGIN;
    let scale = (width / max_x).min(height / max_y).clamp(0.05, 1.5);
    View { dx: 0.0, dy: (height - max_y * scale).max(0.0) / 2.0, scale }
}

fn draw(canvas: &HtmlCanvasElement, placed: &[Placed], names: &[&str], view: View, selected: Option<u32>) {
    let Some(ctx) = canvas.get_context("2d").ok().flatten().and_then(|c| c.dyn_into::<CanvasRenderingContext2d>().ok())
    else {
        return;
    };
    let (w, h) = (f64::from(canvas.width()), f64::from(canvas.height()));
    let _ = ctx.set_transform(1.0, 0.0, 0.0, 1.0, 0.0, 0.0);
    ctx.set_fill_style_str("#ffffff");
    ctx.fill_rect(0.0, 0.0, w, h);
    let _ = ctx.set_transform(view.scale, 0.0, 0.0, view.scale, view.dx, view.dy);
    ctx.set_font("12px sans-serif");
    ctx.set_text_align("center");
    for p in placed {
        let Some((px, py)) = p.parent else { continue };
        ctx.begin_path();
        ctx.set_stroke_style_str(if p.dominant { "#222" } else { "#9a9a9a" });
        ctx.set_line_width(1.0 + if p.dominant { 3.0 } else { 5.0 * p.share });
        ctx.move_to(px, py);
        ctx.line_to(p.x, p.y);
        ctx.stroke();
        if let Some(name) = p.action.and_then(|a| names.get(usize::from(a))) {
            ctx.set_fill_style_str(if p.dominant { "#111" } else { "#555" });
            let _ = ctx.fill_text(name, (px + p.x) / 2.0, (py + p.y) / 2.0 - 5.0);
        }
    }
    for p in placed {
        ctx.begin_path();
        let _ = ctx.arc(p.x, p.y, p.radius, 0.0, std::f64::consts::TAU);
        ctx.set_fill_style_str(&success_colour(p.success_rate));
        ctx.fill();
        ctx.set_line_width(if selected == Some(p.id) { 3.0 } else { 1.0 });
        ctx.set_stroke_style_str(if selected == Some(p.id) { "#000" } else { "#fff" });
        ctx.stroke();
    }
}

/// The node under a point in canvas pixels.
fn hit(placed: &[Placed], view: View, x: f64, y: f64) -> Option<u32> {
    let (tx, ty) = ((x - view.dx) / view.scale, (y - view.dy) / view.scale);
    placed
        .iter()
        .filter(|p| (p.x - tx).hypot(p.y - ty) <= p.radius.max(6.0 / view.scale))
        .min_by(|a, b| a.radius.total_cmp(&b.radius))
        .map(|p| p.id)
}

/// Canvas pixels of a pointer event (the canvas may be drawn smaller than its pixel size).
fn canvas_point(canvas: &HtmlCanvasElement, client_x: i32, client_y: i32) -> (f64, f64) {
    let rect = canvas.get_bounding_client_rect();
    let sx = f64::from(canvas.width()) / rect.width().max(1.0);
    let sy = f64::from(canvas.height()) / rect.height().max(1.0);
    ((f64::from(client_x) - rect.left()) * sx, (f64::from(client_y) - rect.top()) * sy)
}

#[component]
pub fn TreeView() -> impl IntoView {
    let RunBook { runs, selected: selected_run, .. } = expect_context::<RunBook>();
    let canvas = NodeRef::<Canvas>::new();
    let view = RwSignal::new(None::<View>);
    let selected_node = RwSignal::new(None::<u32>);
    let drag = StoredValue::new(None::<(f64, f64, f64, f64)>);
    let run_tree = move || {
        let id = selected_run.get()?;
        runs.with(|runs| runs.iter().find(|r| r.id == id).map(|r| (r.tree.clone(), r.spec.env.id().action_names())))
    };
    let placed = Memo::new(move |_| run_tree().map(|(tree, names)| (layout(&tree), names, tree)));
    Effect::new(move |previous: Option<Option<u32>>| {
        // Another run: fit its tree and forget the node picked in the last one.
        let run = selected_run.get();
        if previous.is_some_and(|p| p != run) {
            view.set(None);
            selected_node.set(None);
        }
        run
    });
    let current_view = move |c: &HtmlCanvasElement, placed: &[Placed]| {
        view.get_untracked().unwrap_or_else(|| fit(placed, f64::from(c.width()), f64::from(c.height())))
    };
    redraw_on_change(
        move || {
            placed.track();
            view.track();
            selected_node.track();
        },
        move || {
            let Some(c) = canvas.get_untracked() else { return };
            placed.with_untracked(|p| match p {
                Some((placed, names, _)) => {
                    draw(&c, placed, names, current_view(&c, placed), selected_node.get_untracked())
                }
                None => draw(&c, &[], &[], View { dx: 0.0, dy: 0.0, scale: 1.0 }, None),
            });
        },
    );
    let adjust = move |f: &dyn Fn(View) -> View| {
        let Some(c) = canvas.get_untracked() else { return };
        let base = placed.with_untracked(|p| p.as_ref().map(|(placed, _, _)| current_view(&c, placed)));
        if let Some(base) = base {
            view.set(Some(f(base)));
        }
    };
    let zoom_at = move |factor: f64, x: f64, y: f64| {
        adjust(&|v| {
            let scale = (v.scale * factor).clamp(0.05, 8.0);
            let k = scale / v.scale;
            View { dx: x - (x - v.dx) * k, dy: y - (y - v.dy) * k, scale }
        })
    };
    let on_pointer_down = move |ev: leptos::ev::PointerEvent| {
        if let Some(c) = canvas.get_untracked() {
            let (x, y) = canvas_point(&c, ev.client_x(), ev.client_y());
            drag.set_value(Some((x, y, x, y)));
            let _ = c.set_pointer_capture(ev.pointer_id());
        }
    };
    let on_pointer_move = move |ev: leptos::ev::PointerEvent| {
        let (Some(c), Some((x0, y0, last_x, last_y))) = (canvas.get_untracked(), drag.get_value()) else { return };
        let (x, y) = canvas_point(&c, ev.client_x(), ev.client_y());
        drag.set_value(Some((x0, y0, x, y)));
        adjust(&|v| View { dx: v.dx + x - last_x, dy: v.dy + y - last_y, ..v });
    };
    let on_pointer_up = move |ev: leptos::ev::PointerEvent| {
        let (Some(c), Some((x0, y0, _, _))) = (canvas.get_untracked(), drag.get_value()) else { return };
        drag.set_value(None);
        let (x, y) = canvas_point(&c, ev.client_x(), ev.client_y());
        if (x - x0).hypot(y - y0) < 4.0 {
            let picked = placed
                .with_untracked(|p| p.as_ref().and_then(|(placed, _, _)| hit(placed, current_view(&c, placed), x, y)));
            selected_node.set(picked);
        }
    };
    let on_wheel = move |ev: leptos::ev::WheelEvent| {
        ev.prevent_default();
        if let Some(c) = canvas.get_untracked() {
            let (x, y) = canvas_point(&c, ev.client_x(), ev.client_y());
            zoom_at(if ev.delta_y() < 0.0 { 1.15 } else { 1.0 / 1.15 }, x, y);
        }
    };
    let on_key = move |ev: leptos::ev::KeyboardEvent| {
        let Some(c) = canvas.get_untracked() else { return };
        let (cx, cy) = (f64::from(c.width()) / 2.0, f64::from(c.height()) / 2.0);
        let pan = |dx: f64, dy: f64| adjust(&|v| View { dx: v.dx + dx, dy: v.dy + dy, ..v });
        match ev.key().as_str() {
            "ArrowLeft" => pan(40.0, 0.0),
            "ArrowRight" => pan(-40.0, 0.0),
            "ArrowUp" => pan(0.0, 40.0),
            "ArrowDown" => pan(0.0, -40.0),
            "+" | "=" => zoom_at(1.25, cx, cy),
            "-" => zoom_at(0.8, cx, cy),
            "0" => view.set(None),
            _ => return,
        }
        ev.prevent_default();
    };

    let details = move || {
        let node_id = selected_node.get()?;
        placed.with(|p| {
            let (_, names, tree) = p.as_ref()?;
            let node = tree.nodes().get(node_id as usize)?;
            let path: Vec<&str> =
                tree.path(node_id).iter().map(|&a| names.get(usize::from(a)).copied().unwrap_or("?")).collect();
            let episodes: Vec<String> = node
                .episodes
                .iter()
                .rev()
                .map(|&e| if e >= LIVE_EPISODE_BASE { format!("live {}", e - LIVE_EPISODE_BASE + 1) } else { e.to_string() })
                .collect();
            let path = if path.is_empty() { "(start of every episode)".to_owned() } else { path.join(" → ") };
            Some(view! {
                <div id="tree-node" class="node-details">
                    <p><strong>{path}</strong></p>
                    <p>{format!("{} episodes, success {:.1}%, mean return {:.2}", node.visits, 100.0 * node.success_rate(), node.mean_return())}</p>
                    <p class="episodes">"Latest episodes through this node: " <span id="tree-node-episodes">{episodes.join(", ")}</span></p>
                </div>
            })
        })
    };

    view! {
        <section aria-labelledby="tree-heading" class="panel">
            <h2 id="tree-heading">"Episode tree"</h2>
            <p class="hint">
                "Every episode is a path of actions from the left. Node size: episodes through it; colour: success rate "
                <span class="swatch" style="background: rgb(230, 97, 1)"></span>" 0% to "
                <span class="swatch" style="background: rgb(0, 114, 178)"></span>" 100%; the bold path is the most visited. "
                "Drag or use the arrow keys to pan, the wheel or + and − to zoom, 0 to fit; click a node to list its episodes."
            </p>
            <p hidden=move || selected_run.get().is_some()>"Select a run to see its tree."</p>
            <canvas id="tree" node_ref=canvas width="960" height="420" tabindex="0" role="img"
                aria-label="Episode tree of the selected run"
                on:pointerdown=on_pointer_down on:pointermove=on_pointer_move on:pointerup=on_pointer_up
                on:wheel=on_wheel on:keydown=on_key></canvas>
            {details}
        </section>
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use engine::{AgentId, EnvId, Run, RunSpec};

    #[test]
    fn a_trained_orchestrator_tree_shows_coder_then_tester_as_the_bold_path() {
        let mut run = Run::new(RunSpec::new(EnvId::Orchestrator, AgentId::QLearning, 1, 5000)).unwrap();
        run.by_ref().for_each(drop);
        let placed = layout(run.tree());
        let bold: Vec<u8> = placed.iter().filter(|p| p.dominant).filter_map(|p| p.action).collect();
        assert_eq!(&bold[..2], &[1, 2], "coder → tester");
        // Every edge starts at its parent's position, and rare branches are pruned.
        for p in &placed[1..] {
            let (px, py) = p.parent.expect("non-root nodes have a parent");
            assert!(placed.iter().any(|q| q.x == px && q.y == py && q.x + COLUMN == p.x));
            assert!(p.share >= MIN_VISIT_SHARE);
        }
        assert!(placed.len() < run.tree().nodes().len());
    }

    #[test]
    fn hits_find_the_node_under_the_pointer_at_any_zoom() {
        let mut run = Run::new(RunSpec::new(EnvId::Orchestrator, AgentId::QLearning, 1, 200)).unwrap();
        run.by_ref().for_each(drop);
        let placed = layout(run.tree());
        let view = View { dx: 10.0, dy: -5.0, scale: 0.5 };
        let target = &placed[3];
        assert_eq!(hit(&placed, view, target.x * 0.5 + 10.0, target.y * 0.5 - 5.0), Some(target.id));
        assert_eq!(hit(&placed, view, -500.0, -500.0), None);
    }
}
