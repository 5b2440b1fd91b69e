//! The StepCoder ablation reports kept in this browser (the last [`KEPT`]): the one shown, their
//! table, and their export and import as the reports `rlcg stepcoder learn --json` prints.

use engine::stepcoder::ablation::AblationReport;
use leptos::prelude::*;

use crate::services::storage::{self, setting};
use crate::widgets::{download, upload};

/// The most ablation reports kept in this browser; the oldest goes first.
pub const KEPT: usize = 20;

/// What a report ran, in a few words.
pub fn described(report: &AblationReport) -> String {
    let arms: Vec<&str> = report.spec.arms.iter().map(|a| a.name()).collect();
    let tasks = if report.spec.tasks.is_empty() { "all tasks".to_owned() } else { report.spec.tasks.join(", ") };
    let params = &report.spec.params;
    format!(
        "{} × {} seeds × {} executions on {tasks}; {}",
        arms.join(", "),
        report.spec.seeds,
        params.budget,
        params.rollout_rule()
    )
}

/// Keeps `reports` in this browser (losing them costs a rerun, so a refusal is not shown).
fn keep(reports: &[AblationReport]) {
    if let Ok(json) = serde_json::to_string(reports) {
        storage::save_setting(setting::STEPCODER_ABLATIONS, Some(json));
    }
}

/// The reports kept, newest first, and the one shown, with the learner panel's status lines.
#[derive(Clone, Copy)]
pub struct Reports {
    pub kept: RwSignal<Vec<AblationReport>>,
    pub shown: RwSignal<Option<AblationReport>>,
    pub status: RwSignal<String>,
    pub problem: RwSignal<Option<String>>,
}

impl Reports {
    /// Keeps `reports` first, dropping the oldest beyond [`KEPT`].
    pub fn add(self, reports: Vec<AblationReport>) {
        self.kept.update(|kept| {
            for report in reports.into_iter().rev() {
                kept.insert(0, report);
            }
            kept.truncate(KEPT);
        });
        self.kept.with_untracked(|kept| keep(kept));
    }
}

/// The table of the kept reports, with export and import.
#[component]
pub fn KeptReports(reports: Reports) -> impl IntoView {
    let Reports { kept, shown, status, problem } = reports;
    let import = move |ev: leptos::ev::Event| {
        let Some(file) = upload::picked(&ev) else { return };
        upload::read_text(file, move |name, text| {
            match text.and_then(|text| AblationReport::parse(&text).map_err(|e| format!("{name}: {e}"))) {
                Err(message) => problem.set(Some(message)),
                Ok(imported) => {
                    problem.set(None);
                    status.set(format!("Imported {} ablation report(s) from {name}.", imported.len()));
                    shown.set(imported.first().cloned());
                    reports.add(imported);
                }
            }
        });
    };
    let export = move |_| {
        let saved = kept
            .with_untracked(serde_json::to_string_pretty)
            .map_err(|e| format!("the kept ablations could not be written: {e}"))
            .and_then(|json| download::text("stepcoder-ablations.json", "application/json", &json));
        if let Err(message) = saved {
            problem.set(Some(message));
        }
    };
    view! {
        <h4>"Ablations kept in this browser"</h4>
        <table id="stepcoder-kept" hidden=move || kept.with(Vec::is_empty)>
            <thead><tr><th>"What ran"</th><th>"Fingerprint"</th><th>"Time"</th><th><span class="visually-hidden">"Actions"</span></th></tr></thead>
            <tbody>{move || kept.get().into_iter().enumerate().map(|(index, report)| {
                let what = described(&report);
                let (fingerprint, seconds) = (report.fingerprint.clone(), report.wall_seconds);
                let show = move |_| {
                    status.set(format!("Kept: {}, fingerprint {}.", described(&report), report.fingerprint));
                    shown.set(Some(report.clone()));
                };
                let forget = move |_| {
                    kept.update(|k| { k.remove(index); });
                    kept.with_untracked(|k| keep(k));
                };
                view! {
                    <tr>
                        <td>{what}</td><td><code>{fingerprint}</code></td><td>{format!("{seconds:.1} s")}</td>
                        <td><button type="button" class="kept-show" on:click=show>"Show"</button>" "<button type="button" class="kept-forget" on:click=forget>"Forget"</button></td>
                    </tr>
                }
            }).collect_view()}</tbody>
        </table>
        <p class="actions">
            <button type="button" id="stepcoder-learn-export" disabled=move || kept.with(Vec::is_empty) on:click=export>"Export the kept ablations"</button>
            <label>"Import ablation reports "<input type="file" id="stepcoder-learn-import" accept=".json,application/json" on:change=import /></label>
        </p>
        <p class="hint">"A report is the JSON that "<code>"rlcg stepcoder learn --json"</code>" prints: import one to see the CLI's 20 seeds here."</p>
    }
}
