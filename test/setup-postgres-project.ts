/**
 * Setup of the `postgres` test project: without a PostgreSQL server (WATCHKEEPER_TEST_POSTGRES=off)
 * its tests are reported as skipped, with the reason, rather than run or passed.
 */
import { skipWithoutPostgres } from './helpers/postgres.js';

skipWithoutPostgres();
