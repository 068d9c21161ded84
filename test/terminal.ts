// A write stream that keeps what is written to it, posing as a terminal or not: what progress output (a bar, or
// one line per interval) looks like to its reader.
import { Writable } from 'node:stream';

export function capturedStream(isTTY: boolean): { out: NodeJS.WriteStream; text: () => string } {
  let text = '';
  const out = new Writable({
    write(chunk, _enc, done) {
      text += String(chunk);
      done();
    },
  }) as unknown as NodeJS.WriteStream;
  Object.assign(out, { isTTY, columns: 160, cursorTo: () => true, clearLine: () => true, moveCursor: () => true });
  return { out, text: () => text };
}
