/**
 * A TCP proxy on loopback that a test controls, for the network between a worker and its server: it passes
 * bytes, delays them, or drops the network (every connection reset, new ones reset at once: a partition
 * that resets connections, not one that swallows packets silently) until told otherwise. It sees TLS as
 * bytes: the client checks the server's certificate as it would without it, and the server's name is the
 * same host.
 */
import { connect, createServer, type AddressInfo, type Socket } from 'node:net';

export type ProxyMode = { kind: 'pass' } | { kind: 'delay'; ms: number } | { kind: 'drop' };

export interface TcpProxy {
  /** `127.0.0.1:<port>`: the address to give the worker instead of the server's. */
  address: string;
  /** Connections accepted so far (a reconnect shows as one more). */
  connections(): number;
  set(mode: ProxyMode): void;
  close(): Promise<void>;
}

/** Starts a proxy to `target` (`host:port`), passing bytes until told otherwise. */
export async function tcpProxy(target: string): Promise<TcpProxy> {
  const [host, port] = splitAddress(target);
  let mode: ProxyMode = { kind: 'pass' };
  let accepted = 0;
  const open = new Set<Socket>();
  const server = createServer((downstream) => {
    accepted++;
    if (mode.kind === 'drop') return void downstream.destroy();
    const upstream = connect(port, host);
    for (const socket of [downstream, upstream]) {
      open.add(socket);
      socket.on('close', () => open.delete(socket));
      // A cut connection is the point of a fault: its errors end the pair, quietly.
      socket.on('error', () => undefined);
    }
    pipe(downstream, upstream);
    pipe(upstream, downstream);
  });
  /**
   * Forwards from one side to the other in order. A delay holds each chunk that long from when it came
   * (a slow link, not a narrow one); a chunk that comes after a delay ends still waits for those before it.
   */
  const pipe = (from: Socket, to: Socket) => {
    let last = Promise.resolve();
    let held = 0;
    from.on('data', (chunk: Buffer) => {
      if (mode.kind !== 'delay' && held === 0) return void to.write(chunk);
      const due = Date.now() + (mode.kind === 'delay' ? mode.ms : 0);
      held++;
      last = last
        .then(() => new Promise((resolve) => setTimeout(resolve, Math.max(0, due - Date.now()))))
        .then(() => {
          held--;
          to.write(chunk);
        });
    });
    // Whatever is still held is written first.
    from.on('close', () => void last.then(() => to.end()));
  };
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port: own } = server.address() as AddressInfo;
  return {
    address: `127.0.0.1:${own}`,
    connections: () => accepted,
    set(next) {
      mode = next;
      if (next.kind === 'drop') for (const socket of open) socket.destroy();
    },
    close: async () => {
      for (const socket of open) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

function splitAddress(address: string): [string, number] {
  const at = address.lastIndexOf(':');
  const port = Number(address.slice(at + 1));
  if (at < 1 || !Number.isInteger(port)) throw new Error(`tcpProxy: "${address}" is not host:port`);
  return [address.slice(0, at), port];
}
