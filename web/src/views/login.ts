// The login page (session cookie; the browser never holds an API key), with
// the first-run owner setup beside it while the instance has no owner, so a
// fresh server needs no curl.
import { api, errorText } from "../api";
import { h, replace, uid } from "../dom";

// id is absent in an account kept by an older dashboard.
export type LoggedIn = { username: string; name: string; id?: string };

function field(labelText: string, input: HTMLInputElement): HTMLElement {
  const id = uid("f");
  input.id = id;
  return h("div", { class: "field" }, h("label", { for: id }, labelText), input);
}

export function loginView(notice: string, done: (u: LoggedIn) => void): HTMLElement {
  const who = h("input", { name: "username", autocomplete: "username", required: true, autocapitalize: "none" });
  const password = h("input", { name: "password", type: "password", autocomplete: "current-password", required: true });
  const status = h("div", { class: "form-status" });
  const submit = h("button", { type: "submit" }, "Log in");

  const login = async (identity: string, pass: string): Promise<void> => {
    const byEmail = identity.includes("@");
    const res = await api.accounts.login({
      email: byEmail ? identity : "",
      username: byEmail ? "" : identity,
      password: pass,
    });
    done({ username: res.user?.username ?? identity, name: res.user?.name ?? "", id: res.user?.id });
  };

  const form = h(
    "form",
    {
      class: "card-panel",
      "aria-labelledby": "login-title",
      onsubmit: async (e: Event) => {
        e.preventDefault();
        submit.disabled = true;
        replace(status, h("p", { role: "status" }, "Logging in…"));
        try {
          await login(who.value.trim(), password.value);
        } catch (err) {
          replace(status, h("p", { class: "error", role: "alert" }, errorText(err)));
          password.select();
        } finally {
          submit.disabled = false;
        }
      },
    },
    h("h1", { id: "login-title" }, "Log in to Switchboard"),
    notice && h("p", { class: "notice", role: "status" }, notice),
    field("Username or email", who),
    field("Password", password),
    status,
    submit,
  );

  // First run: the owner account (POST /api/setup answers 409 once one exists;
  // GET /api/setup says whether one does).
  const su = {
    username: h("input", { name: "setup-username", autocomplete: "username", required: true, pattern: "[a-z0-9_.\\-]{2,30}" }),
    name: h("input", { name: "setup-name", autocomplete: "name", required: true }),
    email: h("input", { name: "setup-email", type: "email", autocomplete: "email", required: true }),
    password: h("input", { name: "setup-password", type: "password", autocomplete: "new-password", minlength: 8, required: true }),
    terms: h("input", { name: "setup-terms", type: "checkbox", required: true }),
  };
  const setupStatus = h("div", { class: "form-status" });
  const setupButton = h("button", { type: "submit" }, "Create the owner account");
  const termsId = uid("f");
  su.terms.id = termsId;
  const setup = h(
    "details",
    { class: "card-panel setup" },
    h("summary", null, "First run? Create the owner account"),
    h(
      "form",
      {
        onsubmit: async (e: Event) => {
          e.preventDefault();
          setupButton.disabled = true;
          replace(setupStatus, h("p", { role: "status" }, "Creating the account…"));
          try {
            await api.accounts.setup({
              username: su.username.value.trim(),
              name: su.name.value.trim(),
              email: su.email.value.trim(),
              password: su.password.value,
              acceptedTerms: su.terms.checked,
            });
            await login(su.username.value.trim(), su.password.value);
          } catch (err) {
            replace(setupStatus, h("p", { class: "error", role: "alert" }, errorText(err)));
          } finally {
            setupButton.disabled = false;
          }
        },
      },
      h("p", { class: "hint" }, "Only on a new server: the first account owns the instance."),
      field("Username (2–30 of a–z, 0–9, _ . -)", su.username),
      field("Name", su.name),
      field("Email", su.email),
      field("Password (at least 8 characters)", su.password),
      h("div", { class: "field check" }, su.terms, h("label", { for: termsId }, "I accept the terms of use")),
      setupStatus,
      setupButton,
    ),
  );

  const page = h("main", { id: "main", class: "login", tabindex: -1 }, form);
  // Setup is offered only while the instance has no owner; if the server
  // cannot say, it is offered and POST /api/setup's 409 answers for it.
  api.accounts
    .getSetup({})
    .then((res) => res.ownerExists)
    .catch(() => false)
    .then((ownerExists) => {
      if (!ownerExists) page.append(setup);
      page.dataset.setup = ownerExists ? "done" : "offered";
    });
  queueMicrotask(() => who.focus());
  return page;
}
