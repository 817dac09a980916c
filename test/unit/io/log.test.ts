import { expect } from 'chai';
import { createLogger } from '../../../shared/io/log.ts';

function capture(): { lines: Record<string, unknown>[]; destination: { write(line: string): void } } {
  const lines: Record<string, unknown>[] = [];
  return {
    lines,
    destination: {
      write: (line: string) => {
        lines.push(JSON.parse(line) as Record<string, unknown>);
      },
    },
  };
}

describe('log', () => {
  it('redacts a password when a line carries one, at the top or one level down', () => {
    const { lines, destination } = capture();
    const log = createLogger({ destination, name: 'test' });
    log.info({ password: 's3cret', node: { password: 's3cret', host: '127.0.0.2' } }, 'connect');
    const text = JSON.stringify(lines);
    expect(text).not.to.contain('s3cret');
    expect(lines[0]).to.include({ fn: 'test', msg: 'connect', password: '[redacted]' });
    expect(lines[0]?.node).to.deep.equal({ password: '[redacted]', host: '127.0.0.2' });
  });

  it('keeps the key and reconcile id on a child logger', () => {
    const { lines, destination } = capture();
    createLogger({ destination }).child({ key: 'ns/a', reconcileId: 'r1' }).info('planned');
    expect(lines[0]).to.include({ key: 'ns/a', reconcileId: 'r1', msg: 'planned' });
  });
});
