//! A model's training as it goes: pass@1 on the training and the unseen tasks at each measurement,
//! the share of each update's rollouts that passed and of those the share special-cased to the
//! tests they were rewarded by; the mean reward and the KL to the starting model per update; and
//! each update's curriculum stages and ρ.

use engine::stepcoder::model_ppo::{PassAt1Point, UpdateRecord};
use leptos::prelude::*;

use crate::services::model::palette_colour;
use crate::services::model_training::TrainingView;
use crate::widgets::chart::{Axis, Chart, Series, SvgChart, Ticks, span};

/// The `k`th series of a plot, in the page's palette.
fn series(k: usize, label: &str, points: Vec<(f64, f64)>) -> Series {
    Series { label: label.into(), colour: palette_colour(k), points, band: Vec::new() }
}

/// The shares' plot: pass@1 at each measurement, and the rollouts' pass and special-cased shares.
fn shares(history: &[UpdateRecord], measurements: &[PassAt1Point]) -> Chart {
    let at = |pick: fn(&PassAt1Point) -> f64| measurements.iter().map(|m| (m.after_updates as f64, pick(m))).collect();
    let per_update = |pick: fn(&UpdateRecord) -> f64| history.iter().map(|r| (r.update as f64, pick(r))).collect();
    Chart {
        x: updates_axis(history, measurements),
        y: Axis { title: "Share".into(), range: 0.0..1.0, ticks: Ticks::Percent },
        series: vec![
            series(0, "pass@1 on the training tasks (T 0.2)", at(|m| m.training)),
            series(1, "pass@1 on the unseen tasks (T 0.2)", at(|m| m.unseen)),
            series(2, "rollouts that passed their tests (T 0.8)", per_update(|r| r.pass_rate)),
            series(3, "of those, special-cased (fail the hidden tests)", per_update(|r| r.special_cased)),
        ],
        width: 560,
        plot_height: 260,
    }
}

/// One figure per update, on an axis of its own.
fn per_update(history: &[UpdateRecord], title: &str, label: &str, pick: fn(&UpdateRecord) -> f64) -> Chart {
    let points: Vec<(f64, f64)> = history.iter().map(|r| (r.update as f64, pick(r))).collect();
    Chart {
        x: updates_axis(history, &[]),
        y: Axis {
            title: title.into(),
            range: span(points.iter().map(|p| p.1), 0.01, 0.0..1.0),
            ticks: Ticks::Decimals(3),
        },
        series: vec![series(0, label, points)],
        width: 560,
        plot_height: 180,
    }
}

fn updates_axis(history: &[UpdateRecord], measurements: &[PassAt1Point]) -> Axis {
    let last = history.iter().map(|r| r.update).chain(measurements.iter().map(|m| m.after_updates)).max().unwrap_or(0);
    Axis { title: "Updates".into(), range: 0.0..(last.max(1) as f64), ticks: Ticks::Whole }
}

#[component]
pub fn TrainingPlots(view: TrainingView) -> impl IntoView {
    let TrainingView { history, measurements, .. } = view;
    let shares = Signal::derive(move || history.with(|h| measurements.with(|m| shares(h, m))));
    let reward = Signal::derive(move || {
        history.with(|h| per_update(h, "Mean reward (eq. 3)", "the rollouts' mean reward", |r| r.mean_reward))
    });
    let kl = Signal::derive(move || {
        history
            .with(|h| per_update(h, "KL (nats a token)", "log π − log π_ref over the rollouts' tokens", |r| r.kl))
    });
    let stages = move || {
        history.with(|h| {
            h.iter()
                .map(|r| {
                    let stages: Vec<String> =
                        r.stages.iter().map(|(id, stage, rho)| format!("{id}: stage {stage}, ρ {rho:.2}")).collect();
                    let stages =
                        if stages.is_empty() { "no curriculum in this arm".to_owned() } else { stages.join("; ") };
                    view! { <tr>
                        <td>{r.update}</td><td>{format!("{:+.3}", r.mean_reward)}</td><td>{format!("{:.4}", r.kl)}</td>
                        <td>{format!("{:.0}%", 100.0 * r.kept_share)}</td><td>{stages}</td>
                    </tr> }
                })
                .collect_view()
        })
    };
    view! {
        <div id="model-train-results" hidden=move || history.with(Vec::is_empty) && measurements.with(Vec::is_empty)>
            <SvgChart id="model-train-shares" label="pass@1 and the rollouts' shares against updates" chart=shares />
            <SvgChart id="model-train-reward" label="The rollouts' mean reward against updates" chart=reward />
            <SvgChart id="model-train-kl" label="The KL to the starting model against updates" chart=kl />
            <table id="model-train-updates-table">
                <thead><tr><th>"Update"</th><th>"Mean reward"</th><th>"KL"</th><th>"Tokens in the loss (FGO)"</th><th>"Curriculum: each task's stage and ρ"</th></tr></thead>
                <tbody>{stages}</tbody>
            </table>
        </div>
    }
}
