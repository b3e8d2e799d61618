/**
 * Setup run before every file of the `sqlite` project. Files share their worker's modules
 * (`isolate: false`), so a hook registered at the top of a shared helper would apply to the
 * first file that loads it only; hooks every file needs are registered here instead.
 */
import { afterAll, afterEach } from 'vitest';

import { failOnBrowserProblems } from './helpers/browser-problems.js';

// Pages opened through launchBrowser() are watched; what they reported fails the test it
// happened in, or the file when it happened after its last test (while its pages closed).
afterEach(failOnBrowserProblems);
afterAll(failOnBrowserProblems);
