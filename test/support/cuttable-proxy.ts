import { connect, createServer, type Socket } from "node:net";

/**
 * A TCP proxy in front of PostgreSQL that a test can cut, as when the database restarts or the
 * network fails under a running server. Pass `connectVia` to `createTestDatabase` or
 * `createTestApp`: the database URL then points at the proxy, which forwards to the URL's host.
 */
export async function startCuttableProxy() {
  let upstream = { host: "127.0.0.1", port: 5432 };
  const sockets = new Set<Socket>();
  let frozen = false;
  const proxy = createServer((client) => {
    if (frozen) {
      // Accepted, never answered: a database that hangs.
      sockets.add(client);
      client.on("error", () => undefined);
      client.on("close", () => sockets.delete(client));
      client.pause();
      return;
    }
    const server = connect(upstream.port, upstream.host);
    for (const [socket, peer] of [
      [client, server],
      [server, client],
    ] as const) {
      sockets.add(socket);
      socket.on("error", () => undefined);
      // A side reset (ECONNRESET) does not end its pipe: close the other side too, as a real
      // proxy does, or the database's client would wait for an answer forever.
      socket.on("close", () => {
        sockets.delete(socket);
        peer.destroy();
      });
    }
    client.pipe(server).pipe(client);
  });
  await new Promise<void>((resolve) => proxy.listen(0, "127.0.0.1", resolve));
  const address = proxy.address();
  if (typeof address !== "object" || address === null) throw new Error("proxy has no port");
  const port = address.port;
  const cutConnections = (): void => {
    for (const socket of sockets) socket.destroy();
  };

  return {
    connectVia: (url: string): string => {
      const target = new URL(url);
      upstream = { host: target.hostname, port: Number(target.port || 5432) };
      target.hostname = "127.0.0.1";
      target.port = String(port);
      return target.toString();
    },
    /**
     * The database hangs: nothing more passes either way and new connections get no answer, but
     * no connection closes (a network that drops packets, a frozen server).
     */
    freeze: (): void => {
      frozen = true;
      for (const socket of sockets) {
        socket.unpipe();
        socket.pause();
      }
    },
    /** Resets every open connection; new ones still go through. */
    cutConnections,
    /** The database unreachable: no new connections, every open one reset. */
    close: async (): Promise<void> => {
      const closed = new Promise<void>((resolve) => {
        proxy.close(() => {
          resolve();
        });
      });
      cutConnections();
      await closed;
    },
    /** The database reachable again, on the same port. */
    reopen: async (): Promise<void> => {
      await new Promise<void>((resolve) => proxy.listen(port, "127.0.0.1", resolve));
    },
  };
}
