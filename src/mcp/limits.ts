/** The longest query a memory tool takes (the same as the dashboard's search). */
export const MAX_QUERY_LENGTH = 2000;
/**
 * The longest request line the stdio transport reads. A memory tool's arguments are a few
 * kilobytes at most; a longer line is discarded as it arrives and answered with an error.
 */
export const MAX_REQUEST_BYTES = 1024 * 1024;
