//! The results a share link carries: shown as soon as the link opens, before the run is trained
//! again here, and then checked against the run trained here (same fingerprint = same run).

use engine::device::Backend;
use engine::run::fingerprint;
use engine::share::SharedResults;
use engine::{Environment, RunSpec};
use leptos::prelude::*;

use crate::services::model::Status;
use crate::services::run_book::RunBook;

/// SVG polyline points of a success curve in a 100 × 100 box (percent up).
fn curve_points(curve: &[u8]) -> String {
    let last = curve.len().saturating_sub(1).max(1) as f64;
    let point = |(i, &p): (usize, &u8)| format!("{:.1},{}", i as f64 * 100.0 / last, 100 - p);
    curve.iter().enumerate().map(point).collect::<Vec<_>>().join(" ")
}

#[component]
pub fn SharedResultsPanel(spec: RunSpec, results: SharedResults) -> impl IntoView {
    let runs = expect_context::<RunBook>().runs;
    let final_success = results.success_curve.last().copied().unwrap_or(0);
    let greedy = results.greedy.map(|(success, calls)| {
        format!(
            " The greedy policy succeeded in {success}% of its evaluation episodes with {calls} agent calls on average."
        )
    });
    let summary = format!(
        "The sender's run trained {} episodes and ended at {final_success}% success over the last 100.{}",
        results.episodes,
        greedy.unwrap_or_default()
    );
    // The run trained here from this link: the first finished run of the same spec.
    let expected = results.fingerprint.clone();
    let episodes = results.episodes as usize;
    let check = {
        let spec = spec.clone();
        move || {
            runs.with(|runs| {
                let run = runs.iter().find(|r| r.spec == spec && r.status == Status::Finished)?;
                if run.records.len() < episodes {
                    return Some(format!(
                        "Run #{} stopped after {} of the sender's {episodes} episodes, so the two cannot be compared.",
                        run.id,
                        run.records.len()
                    ));
                }
                let ours = fingerprint(&run.records[..episodes]);
                Some(if ours == expected {
                    format!("Trained again here (run #{}): identical to the sender's run, fingerprint {ours}.", run.id)
                } else if spec.backend == Backend::Wgpu {
                    // GPUs sum in their own order, so a WebGPU run repeats exactly only on the same GPU and driver.
                    format!("Trained again here (run #{}) on WebGPU: it differs from the sender's run (fingerprint {ours}, shared {expected}); WebGPU runs repeat exactly only on the same GPU and driver, CPU runs everywhere.", run.id)
                } else {
                    format!("Trained again here (run #{}): it differs from the sender's run (fingerprint {ours}, shared {expected}).", run.id)
                })
            })
        }
    };
    let env = spec.env.id().make();
    let info = env.info();
    let table = results.table.clone().map(|rows| {
        let head = info.action_names.iter().map(|a| view! { <th scope="col">{*a}</th> }).collect_view();
        let body = rows
            .into_iter()
            .map(|(state, values)| {
                let flags: Vec<String> = env.state_flags(state).into_iter().map(|(k, v)| format!("{k}={v}")).collect();
                let best = values.iter().copied().fold(f64::NEG_INFINITY, f64::max);
                let cells = values
                    .into_iter()
                    .map(|v| view! { <td class:best={v == best}>{format!("{v:.2}")}</td> })
                    .collect_view();
                view! { <tr><th scope="row">{flags.join(" ")}</th>{cells}</tr> }
            })
            .collect_view();
        view! {
            <details open>
                <summary>"The sender's learned table (values rounded to 0.01; the best in each state is marked)"</summary>
                <div class="scroll" tabindex="0"><table id="shared-table"><thead><tr><th scope="col">"State"</th>{head}</tr></thead><tbody>{body}</tbody></table></div>
            </details>
        }
    });
    view! {
        <section id="shared-results" class="panel" aria-labelledby="shared-heading">
            <h2 id="shared-heading">"Shared results"</h2>
            <p id="shared-summary">{summary}</p>
            <svg id="shared-curve" viewBox="-2 -2 104 104" preserveAspectRatio="none" role="img"
                aria-label="The sender's success rate over the last 100 episodes, from the first episode to the last">
                <rect x="0" y="0" width="100" height="100" class="frame" />
                <polyline points=curve_points(&results.success_curve) class="curve" />
            </svg>
            <p class="hint">{format!("Success over the last 100 episodes, 0 to 100%, from episode 1 to {}.", results.episodes)}</p>
            {table}
            <p id="shared-check" role="status">{move || check().unwrap_or_else(|| "Training the same run here to compare…".into())}</p>
        </section>
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn curve_points_span_the_box() {
        assert_eq!(curve_points(&[0, 50, 100]), "0.0,100 50.0,50 100.0,0");
        assert_eq!(curve_points(&[30]), "0.0,70");
    }
}
