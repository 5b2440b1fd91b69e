// The DevTools protocol spoken to the browser directly, for the benchmarks' CPU profiles of
// workers: Playwright's sessions reach pages only.
import { createRequire } from 'node:module';

/**
 * Connects to the browser started with `--remote-debugging-port=PORT`; returns `send(method,
 * params, sessionId)`, which resolves with the command's result (undefined for an error), and
 * `close()`. `onEvent(message)` sees every event (`method`, `params`, `sessionId`).
 */
export async function devTools(port, onEvent = () => {}) {
  const { ws: WebSocket } = createRequire(import.meta.url)('playwright-core/lib/utilsBundle');
  const { webSocketDebuggerUrl } = await (await fetch(`http://127.0.0.1:${port}/json/version`)).json();
  const socket = new WebSocket(webSocketDebuggerUrl);
  await new Promise((resolve) => socket.on('open', resolve));
  let lastId = 0;
  const pending = new Map();
  socket.on('message', (data) => {
    const message = JSON.parse(data);
    if (message.method) return onEvent(message);
    pending.get(message.id)?.(message.result);
    pending.delete(message.id);
  });
  const send = (method, params = {}, sessionId = undefined) => new Promise((resolve) => {
    pending.set(++lastId, resolve);
    socket.send(JSON.stringify({ id: lastId, method, params, sessionId }));
  });
  return { send, close: () => socket.close() };
}
