// The example UI: plain fetch calls to the Portcullis routes; the browser keeps the HttpOnly cookies.
const api = async (method, path, body) => {
  const response = await fetch(`/api/auth${path}`, {
    method,
    credentials: "same-origin",
    headers: body === undefined ? {} : { "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const data = response.status === 304 ? {} : await response.json().catch(() => ({}));
  if (!response.ok) throw Object.assign(new Error(data.message ?? response.statusText), { code: data.code });
  return data;
};

const $ = (id) => document.getElementById(id);
const say = (text) => {
  $("status").textContent = text;
};
const fields = (form) => Object.fromEntries(new FormData(form).entries());

async function show() {
  try {
    const me = await api("GET", "/me");
    $("me-email").textContent = me.email;
    $("me").textContent = JSON.stringify(me, null, 2);
    const { sessions } = await api("GET", "/sessions");
    $("sessions").replaceChildren(
      ...sessions.map((session) => {
        const item = document.createElement("li");
        item.textContent = `${session.browser ?? "?"} on ${session.os ?? "?"} from ${session.ip ?? "?"}, active ${session.lastActiveAt}${session.current ? " (this one)" : ""} `;
        const revoke = document.createElement("button");
        revoke.type = "button";
        revoke.textContent = "Revoke";
        revoke.addEventListener("click", () =>
          run(() => api("DELETE", `/sessions/${encodeURIComponent(session.id)}`), "Session revoked"),
        );
        item.append(revoke);
        return item;
      }),
    );
    $("signed-in").hidden = false;
    $("signed-out").hidden = true;
  } catch {
    $("signed-in").hidden = true;
    $("signed-out").hidden = false;
  }
}

async function run(action, done) {
  try {
    await action();
    say(done);
  } catch (error) {
    say(`${error.code ?? "ERROR"}: ${error.message}`);
  }
  await show();
}

$("signup").addEventListener("submit", (event) => {
  event.preventDefault();
  const { email, password, name } = fields(event.target);
  run(
    () => api("POST", "/register", { email, password, ...(name ? { name } : {}) }),
    "Account created (if the address was new). You can log in now.",
  );
});
$("login").addEventListener("submit", (event) => {
  event.preventDefault();
  run(() => api("POST", "/login", fields(event.target)), "Logged in");
});
$("refresh").addEventListener("click", () => run(() => api("POST", "/refresh"), "Tokens refreshed"));
$("logout").addEventListener("click", () => run(() => api("POST", "/logout"), "Logged out"));
$("revoke-all").addEventListener("click", () =>
  run(() => api("DELETE", "/sessions"), "Signed out everywhere"),
);
show();
