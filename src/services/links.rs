//! The page's links: the one the address was opened with, read once for every kind through
//! `engine::share::Link`, and the page's address with a link in its route.

use engine::share::ablation_link::AblationLink;
use engine::share::route::Route;
use engine::share::search_link::SearchLink;
use engine::share::training_link::TrainingLink;
use engine::share::{Link, Pane, ShareLink};
use leptos::prelude::*;

/// The link the page was opened with, of whichever kind (at most one is set).
#[derive(Clone)]
pub struct OpenedLink {
    pub run: Option<ShareLink>,
    pub search: Option<SearchLink>,
    pub ablation: Option<AblationLink>,
    pub training: Option<TrainingLink>,
}

impl OpenedLink {
    /// Reads the link in the address's route; what had to be replaced by defaults goes to `error`,
    /// with the link's kind.
    pub fn read(error: RwSignal<Option<String>>) -> Self {
        let fragment = Route::parse(&window().location().hash().unwrap_or_default()).link;
        Self {
            run: read(&fragment, error),
            search: read(&fragment, error),
            ablation: read(&fragment, error),
            training: read(&fragment, error),
        }
    }

    /// The pane that opens the link: its kind's, or the Train pane when there is none.
    pub fn pane(&self) -> Pane {
        match (&self.search, &self.ablation, &self.training) {
            (Some(_), _, _) => SearchLink::PANE,
            (_, Some(_), _) => AblationLink::PANE,
            (_, _, Some(_)) => TrainingLink::PANE,
            _ => ShareLink::PANE,
        }
    }

    /// The pane a teacher's link shows alone.
    pub fn focus(&self) -> Option<Pane> {
        let run = self.run.as_ref().and_then(|l| l.teaching.focus);
        let search = self.search.as_ref().and_then(|l| l.teaching.focus);
        run.or(search).or(self.ablation.as_ref().and_then(|l| l.teaching.focus))
    }
}

fn read<L: Link>(fragment: &str, error: RwSignal<Option<String>>) -> Option<L> {
    L::is_fragment(fragment).then(|| {
        let (link, problems) = L::read(fragment);
        if !problems.is_empty() {
            let problems = problems.join("; ");
            error.set(Some(format!(
                "This {} link was not entirely valid, so defaults stand in for: {problems}.",
                L::KIND
            )));
        }
        link
    })
}

/// The page's address (wherever it is hosted) on `pane`'s route, carrying `link` (a link's
/// `key=value` pairs, or empty).
pub fn address_with(pane: Pane, link: &str) -> String {
    let location = window().location();
    let (origin, path) = (location.origin().unwrap_or_default(), location.pathname().unwrap_or_default());
    format!("{origin}{path}#{}", Route::fragment(pane, link))
}

/// The page's address on the route of the pane that opens `link`, carrying it.
pub fn address_of<L: Link>(link: &L) -> String {
    address_with(L::PANE, &link.fragment())
}
