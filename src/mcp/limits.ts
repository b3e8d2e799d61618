/** The longest query a memory tool takes (the same as the dashboard's search). */
export const MAX_QUERY_LENGTH = 2000;
