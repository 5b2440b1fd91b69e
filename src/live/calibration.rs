//! Seed 003 §6.2 in the page: the simulator's odds estimated from the live episodes played so far
//! (`engine::calibration`), shown beside today's, and a new run that trains on them. Its spec holds
//! the calibrated odds, so its share link carries them.

use engine::RunSpec;
use engine::calibration::Calibration;
use engine::env::EnvSpec;
use engine::live::Trial;
use leptos::prelude::*;

use crate::services::run_book::RunBook;

#[component]
pub fn CalibrationPanel(
    /// Every draw of the odds the chosen environment's live episodes observed.
    trials: Signal<Vec<Trial>>,
    /// The chosen policy's environment and parameters (`None` without a choice).
    spec: Signal<Option<EnvSpec>>,
    /// The run a calibrated one copies, but for its environment's odds.
    template: Signal<Option<RunSpec>>,
) -> impl IntoView {
    let book = expect_context::<RunBook>();
    let started = RwSignal::new(None::<String>);
    let calibration = Memo::new(move |_| spec.get().map(|spec| trials.with(|t| Calibration::new(&spec, t))));
    let train = move |_| {
        let (Some(Ok(calibration)), Some(spec), Some(template)) =
            (calibration.get_untracked(), spec.get_untracked(), template.get_untracked())
        else {
            return;
        };
        match calibration.calibrated(&spec) {
            Ok(env) => {
                book.start(RunSpec { env, ..template });
                let id = book.selected.get_untracked().unwrap_or_default();
                started.set(Some(format!(
                    "Run #{id} trains on the calibrated odds (see Train); its share link carries them."
                )));
            }
            Err(message) => started.set(Some(format!("The calibrated odds cannot train a run: {message}"))),
        }
    };
    view! {
        <section id="live-calibration" hidden=move || calibration.with(|c| !matches!(c, Some(Ok(c)) if c.has_trials()))>
            <h3>"Calibrate the simulator from these episodes (seed 003 §6.2)"</h3>
            <p class="hint">"Each live call is one draw of a probability the simulator assumes. With a uniform Beta(1, 1) prior, k events in n draws give the posterior Beta(1 + k, 1 + n − k): its mean is the calibrated value, and 95% of its mass lies in the interval. The tester runs the very tests that define success, so it catches every bug they can see: its draws are all catches."</p>
            <table id="calibration-table">
                <thead><tr><th scope="col">"Probability"</th><th scope="col">"Today"</th><th scope="col">"Observed"</th><th scope="col">"Calibrated (posterior mean)"</th><th scope="col">"95% interval"</th></tr></thead>
                <tbody>{move || calibration.get().and_then(Result::ok).map(|c| c.estimates.into_iter().map(|e| {
                    let (mean, interval) = match (e.mean, e.interval) {
                        (Some(mean), Some((low, high))) => (format!("{mean:.3}"), format!("{low:.3} – {high:.3}")),
                        _ => ("today's".to_owned(), "no draw yet".to_owned()),
                    };
                    view! {
                        <tr data-odds=e.odds><th scope="row">{e.odds}</th><td>{format!("{:.3}", e.current)}</td>
                            <td class="observed">{format!("{} of {}", e.happened, e.trials)}</td><td class="mean">{mean}</td><td>{interval}</td></tr>
                    }
                }).collect_view())}</tbody>
            </table>
            <p class="actions"><button type="button" id="calibrate-train" on:click=train>"Train a new run with these odds"</button></p>
            <p id="calibrate-started" role="status" hidden=move || started.get().is_none()>{move || started.get()}</p>
        </section>
    }
}
