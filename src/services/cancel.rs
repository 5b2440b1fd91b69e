//! The page's one way to stop work in flight: a flag every host loop reads between two steps, and
//! the abort of the one fetch or generation under way.

use std::cell::{Cell, RefCell};
use std::rc::Rc;

use wasm_bindgen::JsValue;
use web_sys::AbortController;

/// Cancels a call in flight (and any retry waiting).
#[derive(Clone, Default)]
pub struct CancelToken {
    cancelled: Rc<Cell<bool>>,
    controller: Rc<RefCell<Option<AbortController>>>,
}

impl CancelToken {
    pub fn cancel(&self) {
        self.cancelled.set(true);
        if let Some(controller) = self.controller.borrow().as_ref() {
            controller.abort();
        }
    }

    pub fn is_cancelled(&self) -> bool {
        self.cancelled.get()
    }

    /// A fresh controller that [`CancelToken::cancel`] aborts, for one operation.
    pub fn attach_controller(&self) -> Result<AbortController, JsValue> {
        let controller = AbortController::new()?;
        *self.controller.borrow_mut() = Some(controller.clone());
        if self.is_cancelled() {
            controller.abort();
        }
        Ok(controller)
    }
}
