/** Binding a server, with the failures a user meets said as what to do about them. */
import type { Server } from "node:net";
import { ConfigInvalidError } from "../errors.js";

/** Resolves once `server` listens; a busy port, a privileged one or a foreign address is CONFIG_INVALID naming it. */
export async function listenOn(server: Server, port: number, host: string): Promise<void> {
  try {
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen(port, host, () => {
        server.off("error", reject);
        resolve();
      });
    });
  } catch (error) {
    throw listenError(error, host, port);
  }
}

function listenError(error: unknown, host: string, port: number): unknown {
  const code = (error as { code?: string }).code;
  if (code === "EADDRINUSE") return new ConfigInvalidError(`${host}:${port} is already in use; stop what listens there or choose another port (--port)`);
  if (code === "EACCES") return new ConfigInvalidError(`${host}:${port} may not be bound by this user; choose a port above 1023 (--port)`);
  if (code === "EADDRNOTAVAIL") return new ConfigInvalidError(`${host} is not an address of this machine (--host)`);
  return error;
}
