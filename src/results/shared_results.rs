//! The results a share link carries: shown as soon as the link opens, before the run is trained
//! again here, and then checked against the run trained here (same fingerprint = same run).

use engine::device::Backend;
use engine::run::fingerprint;
use engine::share::SharedResults;
use engine::{Environment, RunSpec};
use leptos::prelude::*;

use crate::services::model::{Status, palette_colour};
use crate::services::run_book::RunBook;
use crate::widgets::chart::{Axis, Chart, Series, SvgChart, Ticks};

/// The sender's success curve as (episode, share) points: point `i` of `n` is the episode
/// `SharedResults::of` took it at, ⌈i·episodes/n⌉ (from 1).
fn curve_points(curve: &[u8], episodes: u32) -> Vec<(f64, f64)> {
    let n = curve.len().max(1) as u64;
    let episode = |i: u64| (i * u64::from(episodes)).div_ceil(n) as f64;
    curve.iter().zip(1..).map(|(&p, i)| (episode(i), f64::from(p) / 100.0)).collect()
}

/// The sender's curve, drawn as the page draws every plot.
fn curve_chart(results: &SharedResults) -> Chart {
    let series = Series {
        label: "The sender's run".into(),
        colour: palette_colour(0),
        points: curve_points(&results.success_curve, results.episodes),
        band: Vec::new(),
    };
    Chart {
        x: Axis { title: "Episode".into(), range: 0.0..f64::from(results.episodes.max(10)), ticks: Ticks::Whole },
        y: Axis { title: "Success over the last 100 episodes".into(), range: 0.0..1.0, ticks: Ticks::Percent },
        series: vec![series],
        width: 560,
        plot_height: 240,
    }
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
            <SvgChart id="shared-curve" label="The sender's success rate over the last 100 episodes, from the first episode to the last"
                chart=Signal::stored(curve_chart(&results)) />
            {table}
            <p id="shared-check" role="status">{move || check().unwrap_or_else(|| "Training the same run here to compare…".into())}</p>
        </section>
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_curve_s_points_sit_at_the_episodes_they_were_taken_at() {
        assert_eq!(curve_points(&[0, 50, 100], 300), vec![(100.0, 0.0), (200.0, 0.5), (300.0, 1.0)]);
        assert_eq!(curve_points(&[30], 1), vec![(1.0, 0.3)]);
        assert_eq!(curve_points(&[10, 20], 5), vec![(3.0, 0.1), (5.0, 0.2)]);
    }
}
