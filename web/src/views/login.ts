// The login page (session cookie; the browser never holds an API key). While
// the instance has no owner it opens on creating one (a fresh server needs no
// curl), with the login a click away; a login there answers "No account
// exists yet: create the owner" (NO_ACCOUNT) and leads back to it.
import { api, errorCode, errorText } from "../api";
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

  // The login's title heads the page, or sits under owner creation's.
  let loginTitle: HTMLElement = h("h1", { id: "login-title" }, "Log in to Switchboard");
  const titleLevel = (tag: "h1" | "h2") => {
    if (loginTitle.tagName === tag.toUpperCase()) return;
    const t = h(tag, { id: "login-title" }, "Log in to Switchboard");
    loginTitle.replaceWith(t);
    loginTitle = t;
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
          if (errorCode(err) === "NO_ACCOUNT") showFresh(true);
          else password.select();
        } finally {
          submit.disabled = false;
        }
      },
    },
    loginTitle,
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
  const setupForm = h(
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
    h("p", { class: "hint" }, "This server has no account yet: the first account owns the instance."),
    field("Username (2–30 of a–z, 0–9, _ . -)", su.username),
    field("Name", su.name),
    field("Email", su.email),
    field("Password (at least 8 characters)", su.password),
    h("div", { class: "field check" }, su.terms, h("label", { for: termsId }, "I accept the terms of use")),
    setupStatus,
    setupButton,
  );
  const setupTitle = h("h1", { id: "setup-title" }, "Create the owner account");
  const setup = h("section", { class: "card-panel setup", "aria-labelledby": "setup-title" }, setupTitle, setupForm);

  const page = h("main", { id: "main", class: "login", tabindex: -1 }, h("p", { class: "loading", role: "status" }, "Loading…"));

  // An instance with its owner: the login alone.
  const showLogin = () => {
    titleLevel("h1");
    replace(page, form);
    page.dataset.setup = "done";
    queueMicrotask(() => who.focus());
  };
  // A fresh instance: owner creation first, the login folded under it
  // (opened when a login has just been refused, to show why).
  function showFresh(loginOpen: boolean): void {
    const later = h(
      "details",
      { class: "card-panel login-later", open: loginOpen },
      h("summary", null, "Already set up? Log in"),
      form,
    );
    titleLevel("h2");
    replace(page, setup, later);
    page.dataset.setup = "offered";
    queueMicrotask(() => su.username.focus());
  }
  // If the server cannot say whether an owner exists, the login shows: on a
  // fresh instance its answer (NO_ACCOUNT) leads to owner creation.
  api.accounts
    .getSetup({})
    .then((res) => (res.ownerExists ? showLogin() : showFresh(false)))
    .catch(() => showLogin());
  return page;
}
