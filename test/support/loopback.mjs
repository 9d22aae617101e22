// Preloaded (node --import) into a server that listens on every interface: binds it to 127.0.0.1 instead, on the port
// it asked for (0: any), and prints `loopback-port N` on stderr once it listens, so a test can find it.

import net from 'node:net';

const listen = net.Server.prototype.listen;
/** @this {net.Server} @param {...any} args */
function loopbackListen(...args) {
  if (typeof args[0] === 'number' || typeof args[0] === 'string') {
    const port = Number(args[0]);
    const done = args.find((a) => typeof a === 'function');
    return Reflect.apply(listen, this, [
      port,
      '127.0.0.1',
      () => {
        const address = /** @type {net.AddressInfo} */ (this.address());
        process.stderr.write(`loopback-port ${address.port}\n`);
        done?.();
      },
    ]);
  }
  return Reflect.apply(listen, this, args);
}
net.Server.prototype.listen = /** @type {any} */ (loopbackListen);
