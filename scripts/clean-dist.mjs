// `npm run build` starts from an empty dist/ (the library and CLI builds run in
// parallel, so neither may clean it itself).
import { rmSync } from 'node:fs';

rmSync(new URL('../dist', import.meta.url), { recursive: true, force: true });
