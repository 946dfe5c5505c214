/** A response as the suites look at it. */
export interface HttpReply {
  status: number;
  headers: Headers;
  /** The `Set-Cookie` headers, one entry each. */
  cookies: string[];
  text: string;
  /** The parsed JSON body, `{}` when the body is empty or not JSON. */
  body: Record<string, unknown>;
}

export interface CallInit {
  /** Sent as JSON with `Content-Type: application/json`. */
  body?: unknown;
  /** Sent as is; a string gets fetch's `text/plain` type unless a header says otherwise. */
  raw?: string | Uint8Array | ReadableStream<Uint8Array>;
  headers?: Record<string, string>;
  /** Sent as `Authorization: Bearer …`. */
  bearer?: string;
  /** Sent as the `Cookie` header. */
  cookie?: string;
  /** Names the exchange in a transcript. */
  label?: string;
  /** false for responses the host framework writes itself (not part of the parity check). */
  record?: boolean;
}

/** Takes one exchange into a transcript: called when the request starts, so entries keep the calls' order. */
export type ExchangeRecorder = () => (entry: string) => void;

export interface HttpClient {
  baseUrl: string;
  call(method: string, path: string, init?: CallInit): Promise<HttpReply>;
}

export interface HttpClientOptions {
  /** Put before every path, e.g. `/api/auth`. */
  prefix?: string;
  /** Where exchanges are recorded (see `CallInit.record`). */
  record?: ExchangeRecorder;
}

const JSON_HEADERS = { "content-type": "application/json" };
const UNSHOWN_HEADERS = ["date", "connection", "keep-alive", "set-cookie", "transfer-encoding"];

/** `fetch` against a running server, with the request shapes the suites need. */
export function createHttpClient(baseUrl: string, options: HttpClientOptions = {}): HttpClient {
  const prefix = options.prefix ?? "";
  return {
    baseUrl,
    async call(method, relativePath, init = {}) {
      const path = `${prefix}${relativePath}`;
      const finish = init.record === false ? undefined : options.record?.();
      const headers: Record<string, string> = {
        ...(init.body !== undefined ? JSON_HEADERS : {}),
        ...init.headers,
      };
      if (init.bearer) headers.authorization = `Bearer ${init.bearer}`;
      if (init.cookie) headers.cookie = init.cookie;
      const body = init.raw ?? (init.body !== undefined ? JSON.stringify(init.body) : undefined);
      const response = await fetch(`${baseUrl}${path}`, {
        method,
        headers,
        body,
        ...(body instanceof ReadableStream ? { duplex: "half" } : {}),
      } as RequestInit);
      const reply = await readReply(response);
      finish?.(describeExchange(method, path, reply, init.label));
      return reply;
    },
  };
}

async function readReply(response: Response): Promise<HttpReply> {
  const text = await response.text();
  let body: Record<string, unknown> = {};
  try {
    body = text ? JSON.parse(text) : {};
  } catch {}
  return {
    status: response.status,
    headers: response.headers,
    cookies: response.headers.getSetCookie(),
    text,
    body,
  };
}

/** One exchange as a transcript shows it: the status line, headers, cookies and body. */
function describeExchange(method: string, path: string, reply: HttpReply, label: string | undefined): string {
  const shownHeaders = [...reply.headers]
    .filter(([name]) => !UNSHOWN_HEADERS.includes(name))
    .map(([name, value]) => `${name}: ${value}`);
  return [
    ...(label ? [`### ${label}`] : []),
    `${method} ${path} -> ${reply.status}`,
    ...shownHeaders,
    ...reply.cookies.map((cookie) => `set-cookie: ${cookie}`),
    reply.text,
  ].join("\n");
}
