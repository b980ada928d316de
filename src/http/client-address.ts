/** Who a request comes from when no token says so: its peer address. */
import type { IncomingMessage } from "node:http";

/** `address:<ip>` of the request's peer, an IPv4-mapped IPv6 address written as IPv4. */
export function clientAddressKey(req: IncomingMessage): string {
  const address = req.socket.remoteAddress ?? "unknown";
  return `address:${address.startsWith("::ffff:") ? address.slice(7) : address}`;
}
