// `scripts/screenshots`: the e2e configuration (the same servers and browser), running only
// e2e/screenshots.mjs, which takes pictures and checks nothing.
import config from './playwright.config.mjs';

export default { ...config, testMatch: 'screenshots.mjs' };
