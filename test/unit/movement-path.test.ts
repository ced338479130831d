import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

/**
 * A gate movement reads as one straight line (docs/architecture.md, walkthrough 1):
 * MovementService.create calls each step once, in order, and no step's file imports (to run) the
 * service or an earlier step's file. `npx tsx tools/trace-path.ts checkin` measures the same at run
 * time ("back into the orchestrator or an earlier step").
 */
const DIR = join(import.meta.dirname, '../../shared/modules/movements');
const read = (file: string) => readFileSync(join(DIR, file), 'utf8');

/** The steps in order: the call create makes, and the files of the step. */
const STEPS = [
  { call: 'this.deps.checks.check(', files: ['validate.ts'] },
  { call: 'this.deps.pictures.take(', files: ['pictures.ts'] },
  { call: 'this.deps.recorder.run(', files: ['group-commit.ts', 'record.ts'] },
  { call: 'this.deps.actuation.pulse(', files: ['actuate.ts'] },
  { call: 'publishMovement(', files: ['publish.ts'] },
];

/** The body of `async create(` in service.ts (up to the next member at the class's indent). */
function createBody(): string {
  const text = read('service.ts');
  const start = text.indexOf('  async create(');
  if (start < 0) return '';
  const end = text.indexOf('\n  }\n', start);
  return text.slice(start, end);
}

/** The relative files a file imports to run (not `import type`). */
function runtimeImports(file: string): string[] {
  return [...read(file).matchAll(/^import (?!type )[^;]*? from '\.\/([\w-]+)\.js';/gms)].map(
    (m) => `${m[1]}.ts`,
  );
}

describe('a gate movement as one straight line', () => {
  it('MovementService.create calls validate -> pictures -> record -> actuate -> publish, each once', () => {
    const body = createBody();
    const positions = STEPS.map((s) => ({
      call: s.call,
      at: body.indexOf(s.call),
      times: body.split(s.call).length - 1,
    }));
    expect(positions.filter((p) => p.times !== 1).map((p) => `${p.call} x${p.times}`)).toEqual([]);
    const order = positions.map((p) => p.at);
    expect(order).toEqual([...order].sort((a, b) => a - b));
  });

  it("each step is its own file and imports neither the service nor an earlier step's file", () => {
    const offenders: string[] = [];
    STEPS.forEach((step, i) => {
      const earlier = ['service.ts', ...STEPS.slice(0, i).flatMap((s) => s.files)];
      for (const file of step.files) {
        if (!existsSync(join(DIR, file))) {
          offenders.push(`${file} is missing`);
          continue;
        }
        for (const imported of runtimeImports(file))
          if (earlier.includes(imported)) offenders.push(`${file} imports ${imported}`);
      }
    });
    expect(offenders).toEqual([]);
  });
});
