// Capability packs (CapabilityService), a section of the Store tab: browse
// and search, install (with the access password when the pack has one),
// uninstall, and fill an installed pack's editable fields, which resolve its
// prompt template.
import { api, errorText, isUnauthenticated } from "../api";
import { h, replace, uid } from "../dom";
import type { CapabilityPack } from "../gen/switchboard/v1/capabilities_pb";
import { Region, emptyState, label, pager, reportUnauthenticated, toast } from "../ui";

const pageSize = 10;

type EditableField = { name: string; label?: string; type?: string; default?: string };

function editableFields(p: CapabilityPack): EditableField[] {
  try {
    const v = JSON.parse(p.editableFields || "[]") as unknown;
    return Array.isArray(v) ? v.filter((f): f is EditableField => !!f && typeof f.name === "string") : [];
  } catch {
    return [];
  }
}

function packCard(p: CapabilityPack, changed: () => void): HTMLElement {
  const status = h("div", { class: "form-status" });
  const fail = (err: unknown) => {
    if (isUnauthenticated(err)) reportUnauthenticated();
    replace(status, h("p", { class: "error", role: "alert" }, errorText(err)));
  };
  const titleId = uid("pack");
  let body: HTMLElement;
  if (!p.installed) {
    const pwId = uid("pack-password");
    const pw = h("input", { id: pwId, type: "password", name: "accessPassword", autocomplete: "off", required: true });
    const install = h("button", { type: "submit" }, "Install pack");
    body = h(
      "form",
      {
        class: "pack-install",
        "aria-label": `Install ${p.name}`,
        onsubmit: async (e: Event) => {
          e.preventDefault();
          install.disabled = true;
          try {
            await api.capabilities.installOrCreateCapability({
              capabilityId: p.capabilityId,
              accessPassword: p.hasAccessPassword ? pw.value : undefined,
            });
            toast(`Installed ${p.name}`);
            changed();
          } catch (err) {
            fail(err);
            install.disabled = false;
          }
        },
      },
      p.hasAccessPassword && h("div", { class: "field" }, h("label", { for: pwId }, "Access password"), pw),
      h("div", { class: "editor-actions" }, install),
    );
  } else {
    const fields = editableFields(p);
    const inputs = fields.map((f) => {
      const id = uid("pack-field");
      const input = h("input", { id, name: f.name, type: "text", value: p.customizations[f.name] ?? f.default ?? "" });
      return { f, input, el: h("div", { class: "field" }, h("label", { for: id }, f.label || label(f.name)), input) };
    });
    const save = h("button", { type: "submit" }, "Save fields");
    const uninstall = h("button", { type: "button", class: "secondary" }, "Uninstall pack");
    uninstall.addEventListener("click", async () => {
      uninstall.disabled = true;
      try {
        await api.capabilities.uninstallCapability({ id: p.capabilityId });
        toast(`Uninstalled ${p.name}`);
        changed();
      } catch (err) {
        fail(err);
        uninstall.disabled = false;
      }
    });
    body = h(
      "form",
      {
        class: "pack-customize",
        "aria-label": `Customize ${p.name}`,
        onsubmit: async (e: Event) => {
          e.preventDefault();
          save.disabled = true;
          try {
            await api.capabilities.customizeCapability({
              id: p.capabilityId,
              customizations: Object.fromEntries(inputs.map(({ f, input }) => [f.name, input.value])),
            });
            toast(`Saved ${p.name}`);
            changed();
          } catch (err) {
            fail(err);
            save.disabled = false;
          }
        },
      },
      inputs.map((i) => i.el),
      p.resolvedPrompt && [h("h4", null, "Prompt"), h("p", { class: "kit-text resolved-prompt" }, p.resolvedPrompt)],
      h("div", { class: "editor-actions" }, fields.length > 0 && save, uninstall),
    );
  }
  return h(
    "li",
    { class: "store-row pack", "data-id": p.capabilityId, "aria-labelledby": titleId },
    h("span", { class: "store-name", id: titleId }, p.name),
    p.description && h("p", { class: "store-desc" }, p.description),
    h(
      "div",
      { class: "store-sub" },
      p.category && h("span", { class: "chip" }, label(p.category)),
      h("span", { class: "price" }, p.price > 0 ? `${label(p.pricingModel)}, ${p.price.toFixed(2)}` : label(p.pricingModel)),
      p.installed && h("span", { class: "chip installed" }, "Installed"),
      p.hasAccessPassword && !p.installed && h("span", { class: "muted" }, "Needs an access password"),
    ),
    body,
    status,
  );
}

// packsSection is the Store tab's list of capability packs.
export function packsSection(): HTMLElement {
  let search = "";
  let offset = 0;
  const list = new Region("Capability packs");
  const load = (): Promise<void> =>
    list.load(async () => {
      const res = await api.capabilities.listCapabilities({ search, limit: pageSize, offset });
      const p = res.pagination;
      if (res.capabilities.length === 0) return emptyState(search ? "No packs match." : "No capability packs yet.");
      return [
        h("ul", { class: "store-list packs" }, res.capabilities.map((c) => packCard(c, () => void load()))),
        p &&
          pager({ offset: p.offset, limit: p.limit, total: p.total, hasMore: p.hasMore }, (o) => {
            offset = o;
            void load();
          }, "packs"),
      ];
    });
  const searchId = uid("pack-search");
  const input = h("input", { id: searchId, type: "search", name: "packSearch" });
  let timer: ReturnType<typeof setTimeout> | undefined;
  input.addEventListener("input", () => {
    clearTimeout(timer);
    timer = setTimeout(() => {
      search = input.value.trim();
      offset = 0;
      void load();
    }, 300);
  });
  void load();
  return h(
    "section",
    { class: "packs-section", "aria-labelledby": "packs-title" },
    h("h2", { id: "packs-title" }, "Capability packs"),
    h(
      "form",
      { class: "filters", role: "search", onsubmit: (e: Event) => e.preventDefault() },
      h("div", { class: "field inline" }, h("label", { for: searchId }, "Search packs"), input),
    ),
    list.el,
  );
}
