/** The files a workflow bundle holds, read from webpack's module ids, for the bundle cache's manifest. */
import { describe, expect, it } from 'vitest';
import { bundledFiles } from '../../src/worker/bundle/cache.js';

describe('bundledFiles', () => {
  it('resolves module ids against the folder webpack ran in, once each, and skips modules replaced by nothing', () => {
    const code = [
      '/***/ "./lib/workflows/index.js":',
      '/*!********!*\\',
      '  !*** ./lib/workflows/index.js ***!',
      '/***/ "./node_modules/zod/v4/classic/schemas.js":',
      '/***/ "../shared/zod/index.js":',
      '/***/ "?31ff":',
      '/***/ "./lib/workflows/index.js":',
      'const s = "/***/ \\"./not/a/module.js\\"";',
    ].join('\n');
    expect(bundledFiles(code, '/app')).toEqual([
      '/app/lib/workflows/index.js',
      '/app/node_modules/zod/v4/classic/schemas.js',
      '/shared/zod/index.js',
    ]);
  });
});
