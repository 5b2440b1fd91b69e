//! The page's address: a route to one pane, `#/search`, and the link the page was opened with, if
//! any, after a `?`: `#/train?v=1&env=orchestrator…`. Hash routes, so any static host serves every
//! route from the one `index.html`. Addresses written before routes still read: a bare link
//! (`#v=1&…`) opens on its teacher's focus or its kind's pane, and an anchor to a pane (`#search`)
//! opens that pane.

use super::{Pane, is_link_fragment};

/// An address's fragment, read.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Route {
    /// The pane the address names, if it names one.
    pub pane: Option<Pane>,
    /// The link's `key=value` pairs (without `#` or `?`), or empty.
    pub link: String,
}

impl Route {
    /// Reads a fragment, with or without its `#`. Never fails: a path that names no pane is read
    /// as no pane, and the page opens on its default.
    pub fn parse(fragment: &str) -> Self {
        let fragment = fragment.strip_prefix('#').unwrap_or(fragment);
        match fragment.strip_prefix('/') {
            Some(routed) => {
                let (path, link) = routed.split_once('?').unwrap_or((routed, ""));
                Self { pane: Pane::named(path.trim_end_matches('/')), link: link.to_owned() }
            }
            None if is_link_fragment(fragment) => Self { pane: None, link: fragment.to_owned() },
            None => Self { pane: Pane::named(fragment), link: String::new() },
        }
    }

    /// The fragment (without `#`) of `pane`'s route, carrying `link` when it is not empty.
    pub fn fragment(pane: Pane, link: &str) -> String {
        match link {
            "" => format!("/{}", pane.name()),
            link => format!("/{}?{link}", pane.name()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn route(pane: Option<Pane>, link: &str) -> Route {
        Route { pane, link: link.to_owned() }
    }

    #[test]
    fn routes_name_their_pane_and_carry_their_link() {
        assert_eq!(Route::parse("#/search"), route(Some(Pane::Search), ""));
        assert_eq!(Route::parse("/stepcoder/"), route(Some(Pane::Stepcoder), ""));
        assert_eq!(Route::parse("#/train?v=1&env=planner"), route(Some(Pane::Train), "v=1&env=planner"));
        assert_eq!(Route::fragment(Pane::Train, "v=1&env=planner"), "/train?v=1&env=planner");
        assert_eq!(Route::fragment(Pane::About, ""), "/about");
    }

    #[test]
    fn addresses_from_before_routes_still_read() {
        assert_eq!(Route::parse("#v=1&search=lats"), route(None, "v=1&search=lats"));
        assert_eq!(Route::parse("#search"), route(Some(Pane::Search), ""));
        // An in-page anchor and an empty fragment name no pane, and no link.
        assert_eq!(Route::parse("#seed-000"), route(None, ""));
        assert_eq!(Route::parse(""), Route::default());
        assert_eq!(Route::parse("#/nowhere?v=1"), route(None, "v=1"));
    }

    proptest::proptest! {
        #[test]
        fn a_written_route_reads_back(pane in proptest::sample::select(Pane::ALL.to_vec()), link in "([a-z.]{1,8}=[a-z0-9%]{0,8}&?){0,4}") {
            proptest::prop_assert_eq!(Route::parse(&Route::fragment(pane, &link)), route(Some(pane), &link));
        }
    }
}
