import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { API_TYPES_FILE, apiTypesSource, serverDocument } from '../../../tools/api-types.js';

/**
 * The web apps are typed from shared/ui/common/api/schema.d.ts, generated from the OpenAPI document
 * the server builds. A route schema changed without regenerating leaves the apps typed against an API
 * that no longer exists: this fails until `npm run ui:types` is run and its output committed.
 */
describe('the web apps API types', () => {
  it('are what the current OpenAPI document generates', async () => {
    const expected = await apiTypesSource(serverDocument());
    const committed = readFileSync(API_TYPES_FILE, 'utf8');
    if (committed !== expected) {
      const a = committed.split('\n');
      const b = expected.split('\n');
      const line = a.findIndex((text, i) => text !== b[i]);
      expect.fail(
        'shared/ui/common/api/schema.d.ts is stale: the OpenAPI document changed. Run `npm run ui:types` and ' +
          `commit the file. First difference at line ${line + 1}:\n- ${a[line] ?? '(end of file)'}\n+ ${b[line] ?? '(end of file)'}`,
      );
    }
  }, 60_000);
});
