//! Seed 003 §6.2 in the page: the simulator's odds estimated from the live episodes played so far
//! (`engine::calibration`), shown beside today's, and a new run that trains on them and is then
//! validated again, as `rlcg live --recalibrate` does: the success rates before and after are shown
//! beside the seed's. Its spec holds the calibrated odds, so its share link carries them.

use engine::RunSpec;
use engine::calibration::{Calibration, SEED_SUCCESS_BEFORE_AND_AFTER};
use engine::env::EnvSpec;
use engine::live::Trial;
use leptos::prelude::*;

use crate::services::model::Status;
use crate::services::run_book::RunBook;

/// §6.2's before and after: the run validated before the retraining and its policy's success
/// rate, and the run retrained on the calibrated odds, with its rate once validated.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Recalibration {
    pub before: Option<(u32, f64)>,
    pub retrained: u32,
    pub after: Option<f64>,
}

#[component]
pub fn CalibrationPanel(
    /// Every draw of the odds the chosen environment's live episodes observed.
    trials: Signal<Vec<Trial>>,
    /// The LLMs that answered those episodes, with their speed and device (`LiveView::answered_by`).
    answered_by: Signal<String>,
    /// The chosen policy's environment and parameters (`None` without a choice).
    spec: Signal<Option<EnvSpec>>,
    /// The run a calibrated one copies, but for its environment's odds.
    template: Signal<Option<RunSpec>>,
    /// Validates the retrained run (its id) once it has finished training.
    on_retrained: Callback<u32>,
    recalibration: RwSignal<Option<Recalibration>>,
) -> impl IntoView {
    let book = expect_context::<RunBook>();
    let started = RwSignal::new(None::<String>);
    let training = RwSignal::new(None::<u32>);
    Effect::new(move |_| {
        let Some(id) = training.get() else { return };
        let status = book.runs.with(|runs| runs.iter().find(|r| r.id == id).map(|r| r.status.clone()));
        match status {
            Some(Status::Training) => {}
            Some(Status::Finished) => {
                training.set(None);
                // What the validation reads is its own business, not this effect's.
                untrack(|| on_retrained.run(id));
            }
            // Paused, stopped or gone: the user took it over.
            _ => training.set(None),
        }
    });
    let calibration = Memo::new(move |_| spec.get().map(|spec| trials.with(|t| Calibration::new(&spec, t))));
    let train = move |_| {
        let (Some(Ok(calibration)), Some(spec), Some(template)) =
            (calibration.get_untracked(), spec.get_untracked(), template.get_untracked())
        else {
            return;
        };
        match calibration.calibrated(&spec) {
            Ok(env) => {
                let id = book.start(RunSpec { env, ..template });
                training.set(Some(id));
                started.set(Some(format!(
                    "Run #{id} trains on the calibrated odds (see Train); its share link carries them. Once trained, it is validated on seed 003's five tasks."
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
            <p id="calibration-llms" class="hint">"Observed in the episodes answered by "{answered_by}"."</p>
            <p class="actions"><button type="button" id="calibrate-train" on:click=train disabled=move || training.get().is_some()>"Retrain on these odds, then validate again"</button></p>
            <p id="calibrate-started" role="status" hidden=move || started.get().is_none()>{move || started.get()}</p>
            <p id="recalibration" hidden=move || recalibration.with(|r| r.as_ref().is_none_or(|r| r.after.is_none()))>{move || recalibration.get().and_then(|r| {
                let before = r.before.map_or_else(|| "not validated".to_owned(), |(id, rate)| format!("{:.0}% (run #{id})", rate * 100.0));
                let (seed_before, seed_after) = SEED_SUCCESS_BEFORE_AND_AFTER;
                r.after.map(|after| format!(
                    "The learned policy's success on seed 003's tasks: {before} → {:.0}% (run #{}, on the calibrated odds). Seed 003 §6.2: {:.0}% → {:.0}%.",
                    after * 100.0, r.retrained, seed_before * 100.0, seed_after * 100.0
                ))
            })}</p>
        </section>
    }
}
