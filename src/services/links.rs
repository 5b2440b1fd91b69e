//! The page's links: the one the address was opened with, read once for every kind through
//! `engine::share::Link`, and the page's address with a link as its fragment.

use engine::share::ablation_link::AblationLink;
use engine::share::search_link::SearchLink;
use engine::share::{Link, Pane, ShareLink};
use leptos::prelude::*;

/// The link the page was opened with, of whichever kind (at most one is set).
#[derive(Clone)]
pub struct OpenedLink {
    pub run: Option<ShareLink>,
    pub search: Option<SearchLink>,
    pub ablation: Option<AblationLink>,
}

impl OpenedLink {
    /// Reads the address's fragment; what had to be replaced by defaults goes to `error`, with the
    /// link's kind.
    pub fn read(error: RwSignal<Option<String>>) -> Self {
        let fragment = window().location().hash().unwrap_or_default();
        Self { run: read(&fragment, error), search: read(&fragment, error), ablation: read(&fragment, error) }
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

/// The page's address (wherever it is hosted) with `fragment` after `#`.
pub fn address_with(fragment: &str) -> String {
    let location = window().location();
    format!("{}{}#{fragment}", location.origin().unwrap_or_default(), location.pathname().unwrap_or_default())
}

/// The page's address with `link` as its fragment.
pub fn address_of(link: &impl Link) -> String {
    address_with(&link.fragment())
}
