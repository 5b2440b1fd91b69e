//! A program as its FGO mask reads it, shown by the StepCoder pane's completions and by the
//! learner's rollouts.

use engine::stepcoder::fgo::{FgoMask, LineRole};
use leptos::prelude::*;

/// A program line by line as its mask reads it: the curriculum's prefix grey, generated lines that
/// ran (in the loss) green, generated lines that did not run (removed by FGO) struck through.
#[component]
pub fn MaskedProgram(program: String, mask: FgoMask) -> impl IntoView {
    let lines = program
        .lines()
        .zip(&mask.lines)
        .map(|(text, line)| {
            let (class, title) = match line.role {
                LineRole::Prefix => ("fgo-prefix", "given by the curriculum: masked by CCCS"),
                LineRole::Kept => ("fgo-kept", "generated and run: in the loss"),
                LineRole::Masked => ("fgo-masked", "generated and not run: masked by FGO"),
                LineRole::NotCode => ("fgo-not-code", "no tokens"),
            };
            view! { <span class=class title=title>{format!("{text}\n")}</span> }
        })
        .collect_view();
    view! { <pre class="fgo-mask">{lines}</pre> }
}
