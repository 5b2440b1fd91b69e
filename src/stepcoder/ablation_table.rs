//! The ablation's table over all tasks: each arm's final pass@1 sampled at T = 1 and decoded as
//! Table 1 decodes (T = 0.2, top-p 0.95), its paired difference from vanilla at both, what the
//! curriculum and the mask did, and Table 1's figure beside it.

use engine::stepcoder::ablation::{ArmSummary, CurvePoint, table_1_pass_at_1};
use leptos::prelude::*;

fn interval(point: Option<&CurvePoint>) -> String {
    point.map_or("-".into(), |p| format!("{:.3} [{:.3}, {:.3}]", p.mean, p.low, p.high))
}

fn difference(point: &CurvePoint) -> String {
    format!("{:+.3} [{:+.3}, {:+.3}]", point.mean, point.low, point.high)
}

#[component]
pub fn AblationTable(rows: Signal<Vec<ArmSummary>>) -> impl IntoView {
    view! {
        <table id="stepcoder-learn-table">
            <thead><tr>
                <th>"Arm"</th>
                <th>"pass@1 at the end, T 1 (95% interval), all tasks"</th>
                <th>"pass@1 at T 0.2, top-p 0.95 (Table 1's decoding)"</th>
                <th>"Against vanilla, seed by seed: T 1 / T 0.2"</th>
                <th>"Curriculum reached the full task"</th>
                <th>"Gradient terms FGO removed"</th>
                <th>"Table 1, overall"</th>
            </tr></thead>
            <tbody>{move || rows.get().into_iter().map(|row| {
                let versus = row.versus_vanilla.map_or("-".into(), |d| {
                    format!("{} / {}", difference(&d.sampled), difference(&d.decoded))
                });
                let reached = row.full_task_reached.map_or("-".into(), |n| format!("{n} of {}", row.runs));
                let masked = row.masked_share.map_or("-".into(), |m| format!("{:.1}%", 100.0 * m));
                view! {
                    <tr>
                        <td>{row.arm.name()}</td>
                        <td>{interval(row.curve.last())}</td>
                        <td class="decoded">{interval(row.decoded_curve.last())}</td>
                        <td class="versus-vanilla">{versus}</td>
                        <td>{reached}</td>
                        <td>{masked}</td>
                        <td>{format!("{:.1}", table_1_pass_at_1(row.arm))}</td>
                    </tr>
                }
            }).collect_view()}</tbody>
        </table>
    }
}
