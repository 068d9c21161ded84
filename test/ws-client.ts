// A WebSocket client for tests: JSON messages read one at a time, in order.
import WebSocket from 'ws';

/** A client socket whose messages are read in order; `next()` waits for the next one. */
export async function openSocket(url: string, protocol?: string) {
  const socket = new WebSocket(url, protocol ? [protocol] : []);
  const inbox: unknown[] = [];
  const waiting: ((m: unknown) => void)[] = [];
  socket.on('message', (raw) => {
    const m = JSON.parse(String(raw));
    const next = waiting.shift();
    if (next) next(m);
    else inbox.push(m);
  });
  await new Promise((resolve, reject) => {
    socket.once('open', resolve);
    socket.once('error', reject);
  });
  return {
    send: (m: unknown) => socket.send(JSON.stringify(m)),
    /** Sends a text frame as it is (malformed JSON included). */
    sendRaw: (text: string) => socket.send(text),
    next: () => (inbox.length ? Promise.resolve(inbox.shift()) : new Promise((r) => waiting.push(r))),
    /** How many messages arrived and were not read yet. */
    unread: () => inbox.length,
    close: () => socket.close(),
  };
}
