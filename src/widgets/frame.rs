//! Canvas views redraw on the next animation frame after a change, once, however many changes
//! (progress messages, pointer moves) arrive before it.

use leptos::prelude::*;

/// Calls `draw` on the next animation frame whenever a signal read by `track` changes.
pub fn redraw_on_change(track: impl Fn() + 'static, draw: impl Fn() + Copy + 'static) {
    let pending = StoredValue::new(false);
    Effect::new(move |_| {
        track();
        if pending.get_value() {
            return;
        }
        pending.set_value(true);
        request_animation_frame(move || {
            pending.set_value(false);
            draw();
        });
    });
}
