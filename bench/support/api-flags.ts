/**
 * The API role's V8 flags as it is deployed (`npm run start:api`, docker-compose's `api` service; README, memory
 * under hostile bodies): the benches measure the API so.
 */
export const API_NODE_FLAGS = ['--max-old-space-size=320', '--max-semi-space-size=16'];
