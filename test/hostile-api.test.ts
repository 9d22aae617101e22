// The library's options and inputs as a caller could get them wrong, or as
// an attacker who controls a config could set them: each refused where it is
// given, with an error naming the option; every failure reported, none
// dressed as success; no exchange left hanging.

import net from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { listResources } from '../src/frame/endpoints.js';
import { pipeRelay } from '../src/relay/pipe.js';
import { createRelay, type RelayOptions } from '../src/relay/relay.js';
import { createDecoderStream } from '../src/streams/decoder-stream.js';
import { createEncoderStream, type EncoderStreamOptions } from '../src/streams/encoder-stream.js';
import { readOutcomes } from '../src/streams/iterate.js';
import { PassThrough } from 'node:stream';
import { decodeStream, StreamDecoder } from '../src/exchange/decoder.js';
import { encodeFinish, encodeResponse } from '../src/records/record.js';
import { type ConnectionFault, createTcpRelay, type TcpRelayOptions } from '../src/relay/tcp.js';
import { client, closedPort, closeListening, connectClient, listen } from './support/tcp-client.js';

const frame = listResources.encode({ kind: 'result', result: { resources: [] } });

afterEach(closeListening);

describe('createTcpRelay refuses a bad option when it is created, not at its first client', () => {
  // Each of these was accepted, and the first client's connection threw in the
  // server's connection handler: an uncaught exception that stopped the process.
  const upstream = { host: '127.0.0.1', port: 1 };
  const bad: [string, Partial<TcpRelayOptions>, RegExp][] = [
    ['a port above 65535', { upstream: { host: '127.0.0.1', port: 70_000 } }, /port.*1 to 65535/],
    ['port 0', { upstream: { host: '127.0.0.1', port: 0 } }, /port.*1 to 65535/],
    ['a fractional port', { upstream: { host: '127.0.0.1', port: 80.5 } }, /port.*1 to 65535/],
    ['a port as a string', { upstream: { host: '127.0.0.1', port: '80' as never } }, /port.*1 to 65535/],
    ['upstream as a string that is not HOST:PORT', { upstream: '127.0.0.1' }, /is not HOST:PORT/],
    ['upstream as a string with port 0', { upstream: '127.0.0.1:0' }, /port.*1 to 65535/],
    ['no upstream', { upstream: undefined as never }, /upstream must be \{ host, port \}/],
    ['maxFrameBytes -1', { upstream, maxFrameBytes: -1 }, /maxFrameBytes/],
    ['maxOpenChannels NaN', { upstream, maxOpenChannels: Number.NaN }, /maxOpenChannels/],
    ['maxHeldBytes 1.5', { upstream, maxHeldBytes: 1.5 }, /maxHeldBytes/],
    ["validate 'ful'", { upstream, validate: 'ful' as never }, /validate must be one of/],
    ["validate 'full' with no endpoint", { upstream, validate: 'full' }, /endpoint/],
    ['dial not a function', { upstream, dial: 'net.connect' as never }, /dial must be a function/],
    ['onFault not a function', { upstream, onFault: true as never }, /onFault must be a function/],
  ];
  for (const [name, options, message] of bad) {
    it(name, () => {
      expect(() => createTcpRelay(options as TcpRelayOptions)).toThrow(message);
    });
  }

  it('upstream as "HOST:PORT", as the CLI and the Worker take it', async () => {
    const up = await listen(net.createServer((s) => s.end(Buffer.concat([encodeResponse(1, frame), encodeFinish(1)]))));
    const got = await client(await listen(createTcpRelay({ upstream: `127.0.0.1:${up}` })));
    expect(got.ended).toBe('end');
    expect(Buffer.from(got.bytes)).toEqual(Buffer.concat([encodeResponse(1, frame), encodeFinish(1)]));
  });

  it('a good configuration is still taken', async () => {
    const up = await listen(net.createServer((s) => s.end(Buffer.concat([encodeResponse(1, frame), encodeFinish(1)]))));
    const port = await listen(
      createTcpRelay({ upstream: { host: '127.0.0.1', port: up }, maxFrameBytes: 1024, validate: 'full', endpoint: listResources }),
    );
    const got = await client(port);
    expect(got.ended).toBe('end');
    expect(Buffer.from(got.bytes)).toEqual(Buffer.concat([encodeResponse(1, frame), encodeFinish(1)]));
  });
});

describe("createTcpRelay when its dial fails at a client's connection", () => {
  // A dial that threw, or gave back no socket, threw in the server's
  // connection handler: an uncaught exception that stopped the process.
  const dials: [string, () => unknown, Partial<ConnectionFault>][] = [
    [
      'a dial that throws',
      () => {
        throw new Error('no route');
      },
      { reason: 'upstream-error', cause: 'error', message: 'no route' },
    ],
    ['a dial that returns a number', () => 42, { reason: 'upstream-error', cause: 'error', message: 'dial must return a net.Socket, not number' }],
    ['a dial that returns null', () => null, { reason: 'upstream-error', cause: 'error', message: 'dial must return a net.Socket, not null' }],
  ];
  for (const [name, dial, fault] of dials) {
    it(`${name}: the failure is reported, the client reset, and the relay serves the next client`, async () => {
      const faults: ConnectionFault[] = [];
      const closes: unknown[] = [];
      const server = createTcpRelay({
        upstream: { host: '127.0.0.1', port: 1 },
        dial: dial as never,
        onFault: (f) => faults.push(f),
        onClose: (_id, error) => closes.push(error),
      });
      const port = await listen(server);
      for (let k = 0; k < 2; k++) {
        const got = await client(port);
        expect([got.bytes.length, got.ended]).toEqual([0, 'ECONNRESET']);
      }
      await expect.poll(() => closes.length).toBe(2);
      expect(faults).toEqual([expect.objectContaining(fault), expect.objectContaining(fault)]);
    });
  }
});

describe('the relay refuses an endpoint or onFault it cannot use when it is created', () => {
  // Each was taken, and the relay stopped at the first response (or the first
  // fault) with "not a codec made by defineCodec" or "onFault is not a function".
  const bad: [string, RelayOptions, RegExp][] = [
    ["a codec's name for 'full'", { validate: 'full', endpoint: 'resources/list' as never }, /endpoint must be a codec/],
    ["a hand-made codec for 'full'", { validate: 'full', endpoint: { encode() {}, decode() {} } as never }, /endpoint must be a codec/],
    ["a codec's name for 'json'", { endpoint: 'resources/list' as never }, /endpoint must be a codec/],
    ['onFault as true', { onFault: true as never }, /onFault must be a function/],
    ['onFault as a string', { onFault: 'console.log' as never }, /onFault must be a function/],
  ];
  for (const [name, options, message] of bad) {
    it(`${name}: createRelay and pipeRelay throw`, () => {
      expect(() => createRelay(options)).toThrow(message);
      // Refused before anything is attached: no listener is left on either stream.
      const input = new PassThrough();
      const output = new PassThrough();
      const events = ['data', 'end', 'error', 'close', 'drain', 'finish'];
      const count = (s: PassThrough) => events.reduce((n, e) => n + s.listenerCount(e), 0);
      const before = [count(input), count(output)];
      expect(() => pipeRelay(input, output, options)).toThrow(message);
      expect([count(input), count(output)]).toEqual(before);
    });
  }

  it("a codec, or a function choosing one, is still taken for 'full'", () => {
    expect(() => createRelay({ validate: 'full', endpoint: listResources })).not.toThrow();
    expect(() => createRelay({ validate: 'full', endpoint: () => listResources })).not.toThrow();
  });
});

describe('createEncoderStream refuses a bad option when it is made', () => {
  // Infinity and '10' were taken (a queue with no bound; a string read as a
  // number), and an endpoint that is no codec failed at the first frame.
  const bad: [string, EncoderStreamOptions<unknown>, RegExp][] = [
    ['highWaterMark Infinity', { highWaterMark: Number.POSITIVE_INFINITY }, /highWaterMark must be a finite number of bytes/],
    ["highWaterMark '10'", { highWaterMark: '10' as never }, /highWaterMark must be a finite number of bytes/],
    ['highWaterMark NaN', { highWaterMark: Number.NaN }, /highWaterMark must be a finite number of bytes/],
    ['highWaterMark -1', { highWaterMark: -1 }, /highWaterMark must be a finite number of bytes/],
    ['an endpoint given by its name', { endpoint: 'resources/list' as never }, /endpoint must be a codec/],
  ];
  for (const [name, options, message] of bad) {
    it(name, () => {
      expect(() => createEncoderStream(options)).toThrow(message);
    });
  }

  it('good options are still taken', () => {
    expect(() => createEncoderStream({ highWaterMark: 0, endpoint: listResources })).not.toThrow();
    expect(() => createEncoderStream({ endpoint: () => listResources })).not.toThrow();
  });
});

describe('the encoder stream, when a message cannot be written', () => {
  // A bad channel id, a payload that is not bytes, or a message that is none
  // of the three errored the stream: the records it held were discarded and
  // the channels still open never got their finishes, as a frame that cannot
  // be encoded already did not (the readable errored, channel 1 hanging).
  const bad: [string, unknown, RegExp][] = [
    ['a finish on channel -1', { channel: -1, finish: true }, /channel id -1/],
    ['a payload on channel 2^32', { channel: 2 ** 32, payload: new Uint8Array(0) }, /channel id 4294967296/],
    ['a frame on channel 1.5', { channel: 1.5, frame: { kind: 'result', result: { resources: [] } } }, /channel id 1.5/],
    ["a finish on channel '2'", { channel: '2', finish: true }, /channel id 2 is not/],
    ['a payload that is a string', { channel: 2, payload: 'abc' }, /payload is bytes/],
    ['a message with nothing to write', { channel: 2 }, /a frame, a payload, or finish/],
    ['null', null, TypeError as never],
  ];
  for (const [name, message, error] of bad) {
    it(`${name}: what was written, then a finish for each open channel; the write rejects`, async () => {
      const stream = createEncoderStream({ endpoint: listResources });
      const writer = stream.writable.getWriter();
      const out: Uint8Array[] = [];
      const reading = (async () => {
        for await (const chunk of stream.readable) out.push(chunk);
      })();
      await writer.write({ channel: 1, payload: frame });
      await writer.write({ channel: 3, frame: { kind: 'result', result: { resources: [] } } });
      await expect(writer.write(message as never)).rejects.toThrow(error);
      await reading;
      const events = decodeStream(Buffer.concat(out), { endpoint: listResources });
      expect(events).toEqual([
        { channel: 1, outcome: 'result', result: { resources: [] } },
        { channel: 3, outcome: 'result', result: { resources: [] } },
        { end: 'ok' },
      ]);
    });
  }
});

describe('the stream decoder refuses an onRecord that is no function when it is made', () => {
  // It was taken, and the decoder broke at the first record ("onRecord is not a function").
  for (const onRecord of [true, 'console.log', {}]) {
    it(`onRecord ${JSON.stringify(onRecord)}`, async () => {
      const options = { endpoint: listResources, onRecord: onRecord as never };
      expect(() => new StreamDecoder(options)).toThrow(/onRecord must be a function/);
      expect(() => createDecoderStream(options)).toThrow(/onRecord must be a function/);
      expect(() => decodeStream(new Uint8Array(0), options)).toThrow(/onRecord must be a function/);
      await expect(readOutcomes([], options).next()).rejects.toThrow(/onRecord must be a function/);
    });
  }
});

describe("the TCP relay when a callback of the caller's throws", () => {
  // Each throw escaped into the server's connection handler, a socket's
  // 'error' event or the connection's last promise: an uncaught exception or
  // an unhandled rejection, either of which stops the process (vitest fails
  // the run on them), and drain() never resolved after an onClose threw.
  it('onOpen: the client is reset, no upstream is dialed, onClose gets the throw, the next client is served', async () => {
    let dialed = 0;
    const closes: unknown[] = [];
    const server = createTcpRelay({
      upstream: { host: '127.0.0.1', port: 1 },
      dial: () => {
        dialed++;
        return new net.Socket();
      },
      onOpen: () => {
        throw new Error('onOpen threw');
      },
      onClose: (_id, error) => closes.push(error),
    });
    const port = await listen(server);
    for (let k = 0; k < 2; k++) expect((await client(port)).ended).toBe('ECONNRESET');
    await expect.poll(() => closes.length).toBe(2);
    expect(closes).toEqual([new Error('onOpen threw'), new Error('onOpen threw')]);
    expect(dialed).toBe(0);
  });

  it('onFault, on an upstream error the relay reports itself: the client is reset, onClose gets the throw', async () => {
    const closes: unknown[] = [];
    const server = createTcpRelay({
      upstream: { host: '127.0.0.1', port: await closedPort() },
      onFault: () => {
        throw new Error('onFault threw');
      },
      onClose: (_id, error) => closes.push(error),
    });
    const port = await listen(server);
    for (let k = 0; k < 2; k++) expect((await client(port)).ended).toBe('ECONNRESET');
    await expect.poll(() => closes.length).toBe(2);
    expect(closes).toEqual([new Error('onFault threw'), new Error('onFault threw')]);
  });

  it('onFault, on a connect timeout: the client is reset', async () => {
    const closes: unknown[] = [];
    const server = createTcpRelay({
      upstream: { host: '127.0.0.1', port: 1 },
      connectTimeout: 50,
      dial: () => new net.Socket(),
      onFault: () => {
        throw new Error('onFault threw');
      },
      onClose: (_id, error) => closes.push(error),
    });
    const port = await listen(server);
    expect((await client(port)).ended).toBe('ECONNRESET');
    await expect.poll(() => closes.length).toBe(1);
    expect(closes).toEqual([new Error('onFault threw')]);
  });

  it('onClose: a drain begun while the connection was open still resolves', async () => {
    const up = await listen(
      net.createServer((s) => {
        s.write(encodeResponse(1, frame));
        setTimeout(() => s.end(encodeFinish(1)), 100);
      }),
    );
    let closed = 0;
    const server = createTcpRelay({
      upstream: { host: '127.0.0.1', port: up },
      onClose: () => {
        closed++;
        throw new Error('onClose threw');
      },
    });
    const port = await listen(server);
    const got = connectClient(port);
    await expect.poll(() => server.stats.connectionsOpen).toBe(1);
    const drained = server.drain(1000);
    expect((await got.done).ended).toBe('end');
    expect(await drained).toEqual({ connections: 1, cut: 0 });
    expect(closed).toBe(1);
  });
});

describe('a backend given per call is checked where it is given, as setDefaultBackend checks its own', () => {
  // A name or an object that is no backend was taken, and every decode then threw
  // "backend.verifyFrame is not a function" (or the decoder, "createReader is not a function").
  for (const backend of ['wasm', {}, 42]) {
    it(`backend ${JSON.stringify(backend)}`, () => {
      expect(() => listResources.withBackend(backend as never)).toThrow(/withBackend takes a backend/);
      expect(() => new StreamDecoder({ endpoint: listResources, backend: backend as never })).toThrow(/the backend option takes a backend/);
      expect(() => createRelay({ backend: backend as never })).toThrow(/the backend option takes a backend/);
      expect(() => pipeRelay(new PassThrough(), new PassThrough(), { backend: backend as never })).toThrow(/the backend option takes a backend/);
      expect(() => createTcpRelay({ upstream: { host: '127.0.0.1', port: 1 }, backend: backend as never })).toThrow(
        /the backend option takes a backend/,
      );
    });
  }
});
