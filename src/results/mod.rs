//! The Results pane: the metrics plot, the episode tree, the policy views, and a shared run's
//! results beside the replay.

pub mod plot;
pub mod policy;
pub mod shared_results;
pub mod tree_view;

use engine::RunSpec;
use engine::share::SharedResults;
use leptos::prelude::*;

use crate::results::plot::MetricsPlot;
use crate::results::policy::PolicyPanel;
use crate::results::shared_results::SharedResultsPanel;
use crate::results::tree_view::TreeView;

/// The Results pane: a shared run's results (when the page was opened with them), the curves, the
/// episode tree and the policy.
#[component]
pub fn ResultsPane(shared: Option<(RunSpec, SharedResults)>, error: RwSignal<Option<String>>) -> impl IntoView {
    let on_error = Callback::new(move |problem: Option<String>| error.set(problem));
    view! {
        {shared.map(|(spec, results)| view! { <SharedResultsPanel spec=spec results=results /> })}
        <MetricsPlot on_error=on_error />
        <div class="columns">
            <TreeView />
            <PolicyPanel />
        </div>
    }
}
