// Shared by the e2e specs.

/** Collects console errors and uncaught exceptions, which the page must never produce. */
export function watchErrors(page) {
  const errors = [];
  page.on('console', (msg) => { if (msg.type() === 'error') errors.push(msg.text()); });
  page.on('pageerror', (err) => errors.push(err.message));
  return errors;
}
