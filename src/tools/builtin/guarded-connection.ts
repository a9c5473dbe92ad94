/**
 * Connections that reach allowed addresses only. Every address a host name resolves to is checked,
 * in the lookup the socket connects with, and the address the socket is connected to is checked again
 * before the HTTP client gets the socket, so not a byte (not even a TLS hello) goes to a refused address.
 */
import type { LookupAddress } from 'node:dns';
import { lookup } from 'node:dns/promises';
import type { ClientRequestArgs } from 'node:http';
import net from 'node:net';
import tls from 'node:tls';
import { classifyAddress } from './ip-address.js';

/** Resolves a host name to all its addresses, as `dns.lookup(name, { all: true })` does. */
export type Resolver = (hostname: string) => Promise<LookupAddress[]>;

/** The operating system's resolver (`getaddrinfo`, so /etc/hosts counts too). */
export const systemResolver: Resolver = (hostname) => lookup(hostname, { all: true });

/** What decides where a fetch may connect. */
export interface AddressGuard {
  /** True for an address (canonical IPv4 or IPv6 text, no brackets) that may be connected to. */
  isAllowedAddress: (address: string) => boolean;
  resolve: Resolver;
}

/** A fetch refused by the URL rules or the address policy; the message is the reason the model sees. */
export class WebFetchRefusal extends Error {
  override readonly name = 'WebFetchRefusal';
}

/** Undefined when the guard allows `address`, else what the address is, in words. */
export function refusedAs(address: string, guard: AddressGuard): string | undefined {
  if (guard.isAllowedAddress(address)) return undefined;
  const cls = classifyAddress(address);
  if (!cls) return 'not an IP address';
  return cls.isPublic ? 'not allowed by the address policy' : cls.description;
}

/** Resolves `hostname` and refuses it unless every address it resolves to is allowed. */
export async function resolveAllowed(hostname: string, guard: AddressGuard): Promise<LookupAddress[]> {
  const addresses = await guard.resolve(hostname);
  if (addresses.length === 0) throw new Error(`${hostname} resolved to no address`);
  // One bad address refuses the name: which one the socket would pick is not ours to choose.
  for (const { address } of addresses) {
    const refusal = refusedAs(address, guard);
    if (refusal) throw new WebFetchRefusal(`${hostname} resolves to ${address}, which is ${refusal}`);
  }
  return addresses;
}

/** A `lookup` for `net.connect` that resolves with the guard's resolver and refuses names as above. */
function guardedLookup(guard: AddressGuard): net.LookupFunction {
  return (hostname, options, callback) => {
    resolveAllowed(hostname, guard).then(
      (addresses) => {
        const family = options.family === 4 || options.family === 6 ? options.family : undefined;
        const usable = family ? addresses.filter((a) => a.family === family) : addresses;
        // net.connect asks for all addresses when it races IPv4 and IPv6 (autoSelectFamily), else for one.
        if (options.all) return callback(null, usable);
        const first = usable[0];
        if (!first) return callback(new Error(`${hostname} has no IPv${family} address`), '');
        callback(null, first.address, first.family);
      },
      (err: Error) => callback(err, ''),
    );
  };
}

/** Where one request connects: the URL's host (without IPv6 brackets) and port, and whether it is TLS. */
export interface ConnectTarget {
  hostname: string;
  port: number;
  tls: boolean;
}

/**
 * A `createConnection` for `http.request`: connects through the guarded lookup, checks the connected
 * address, and only then hands the socket (wrapped in TLS for https) to the HTTP client.
 */
export function guardedConnection(
  target: ConnectTarget,
  guard: AddressGuard,
  signal: AbortSignal,
): NonNullable<ClientRequestArgs['createConnection']> {
  return (_options, oncreate) => {
    const socket = net.connect({ host: target.hostname, port: target.port, lookup: guardedLookup(guard), signal });
    // Stays on after the hand-off too: an error before the HTTP client listens must not go unhandled, and
    // oncreate is once-only, so a second call does nothing.
    socket.on('error', (err) => oncreate(err, socket));
    socket.once('connect', () => {
      // The lookup was checked, but this is where the bytes would go: a literal 0.0.0.0 reaches this host,
      // and a resolver that answers differently on the next call would change the address after the check.
      const remote = socket.remoteAddress ?? 'an unknown address';
      const refusal = refusedAs(remote, guard);
      if (refusal) {
        socket.destroy();
        oncreate(new WebFetchRefusal(`the connection went to ${remote}, which is ${refusal}`), socket);
        return;
      }
      if (!target.tls) return oncreate(null, socket);
      const servername = net.isIP(target.hostname) ? undefined : target.hostname; // SNI takes no IP literals
      oncreate(null, tls.connect({ socket, host: target.hostname, servername, ALPNProtocols: ['http/1.1'] }));
    });
    return undefined;
  };
}
