/**
 * The pieces every part of the OpenAPI document builds with (openapi.ts and
 * openapi-conversations.ts): references, nullable types, JSON bodies, the error answers every
 * route may give, and paging.
 */

export const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
export const time = { type: ['string', 'null'], format: 'date-time' };
export const nullable = (type: string) => ({ type: [type, 'null'] });
export const json = (schema: object) => ({ content: { 'application/json': { schema } } });
export const ok = (description: string, schema: object) => ({ description, ...json(schema) });
export const err = (description: string) => ({ description, ...json(ref('Error')) });
export const array = (name: string) => ({ type: 'array', items: ref(name) });
/** What any route may answer. */
export const common = {
  '401': err('missing or wrong credential'),
  '403': err('missing or wrong CSRF token, or a cross-site request'),
  '421': err('a Host this dashboard does not answer to (WATCHKEEPER_ALLOWED_HOSTS)'),
};
/** What any route with a body may answer. */
export const withBody = { ...common, '413': err("the body is over this route's size limit") };
export const paging = [
  { name: 'limit', in: 'query', schema: { type: 'integer', minimum: 1, maximum: 1000 } },
  { name: 'offset', in: 'query', schema: { type: 'integer', minimum: 0 } },
];
