// Writes the RBAC manifests from infra/rbac/permissions.ts. A unit test checks that the
// committed files equal what this renders:  npx tsx infra/rbac/generate.ts
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { rbacFiles } from './render.ts';

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const root = fileURLToPath(new URL('../../', import.meta.url));
  for (const [path, render] of Object.entries(rbacFiles)) {
    writeFileSync(root + path, render());
    console.log(`wrote ${path}`);
  }
}
