/**
 * Calls from a client address of one's own, for the functions' per-address flood limits
 * (functions/_shared/rate-limit.ts): the local gateway sets `X-Forwarded-For` from the socket's
 * address, as Supabase's does, so a test that wants two visitors needs two source addresses. Linux
 * answers the whole 127.0.0.0/8 on loopback: 127.0.0.2, 127.0.0.3, …
 */
import { request as httpRequest } from "node:http";

let host = 1;

/** A loopback address no earlier call of this process used. */
export const nextAddress = (): string => `127.0.${Math.floor(++host / 250)}.${(host % 250) + 2}`;

export interface Answer<Body> {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Body;
}

/** POSTs `payload` to `url` from the address `from`, and reads the JSON answer. */
export function postFrom<Body = Record<string, unknown>>(
  url: string,
  payload: string,
  from: string,
  headers: Record<string, string> = {},
): Promise<Answer<Body>> {
  return callFrom("POST", url, payload, from, headers);
}

/** GETs `url` from the address `from`, and reads the JSON answer. */
export function getFrom<Body = Record<string, unknown>>(
  url: string,
  from: string,
  headers: Record<string, string> = {},
): Promise<Answer<Body>> {
  return callFrom("GET", url, null, from, headers);
}

function callFrom<Body>(
  method: "GET" | "POST",
  url: string,
  payload: string | null,
  from: string,
  headers: Record<string, string>,
): Promise<Answer<Body>> {
  const target = new URL(url);
  return new Promise((resolve, reject) => {
    const call = httpRequest(
      {
        host: target.hostname,
        port: target.port,
        path: target.pathname + target.search,
        method,
        localAddress: from,
        headers: payload === null ? headers : { "content-type": "application/json", ...headers },
      },
      (response) => {
        let text = "";
        response.setEncoding("utf8");
        response.on("data", (chunk: string) => (text += chunk));
        response.on("end", () =>
          resolve({ status: response.statusCode ?? 0, headers: response.headers, body: JSON.parse(text || "{}") }),
        );
      },
    );
    call.on("error", reject);
    call.end(payload ?? undefined);
  });
}
