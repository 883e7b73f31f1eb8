// The sprite's settings in Settings (PUT /api/user/sprite-settings, a
// partial object): each control saves its one field when changed, and the
// figure in the corner follows at once.
import { api, errorText, isUnauthenticated } from "../api";
import { h, replace, uid } from "../dom";
import type { SpriteSettings, UpdateSpriteSettingsRequest } from "../gen/switchboard/v1/sprite_pb";
import { sprite } from "../sprite";
import { Region, reportUnauthenticated, toast } from "../ui";
import { terms } from "../vocabulary";

type Change = Omit<Partial<UpdateSpriteSettingsRequest>, "$typeName" | "$unknown">;

export function spriteSection(): HTMLElement {
  const region = new Region("Assistant figure settings");
  const problem = h("div");
  const save = async (change: Change, control: HTMLInputElement | HTMLSelectElement, undo: () => void) => {
    control.disabled = true;
    replace(problem);
    try {
      const res = await api.sprite.updateSpriteSettings(change);
      if (res.settings) sprite.apply(res.settings);
      toast("Saved the assistant's figure");
    } catch (e) {
      if (isUnauthenticated(e)) reportUnauthenticated();
      undo();
      replace(problem, h("p", { class: "error", role: "alert" }, errorText(e)));
    } finally {
      control.disabled = false;
    }
  };
  const toggle = (s: SpriteSettings, field: "enabled" | "showLabels", text: string) => {
    const id = uid(`sprite-${field}`);
    const box: HTMLInputElement = h("input", {
      id,
      type: "checkbox",
      role: "switch",
      checked: s[field],
      onchange: () => void save({ [field]: box.checked }, box, () => (box.checked = !box.checked)),
    });
    return h("div", { class: "switch-row" }, box, h("label", { for: id }, text));
  };
  const choice = (s: SpriteSettings, field: "animationSpeed" | "idleStyle" | "size", vocabulary: string, text: string) => {
    const id = uid(`sprite-${field}`);
    let was = s[field];
    const select: HTMLSelectElement = h(
      "select",
      {
        id,
        name: field,
        onchange: () => {
          const before = was;
          was = select.value;
          void save({ [field]: select.value }, select, () => (select.value = was = before));
        },
      },
      terms(vocabulary).map((t) => h("option", { value: t.value, selected: t.value === s[field] }, t.label)),
    );
    return h("div", { class: "field" }, h("label", { for: id }, text), select);
  };
  void region.load(async () => {
    const res = await api.sprite.getSpriteSettings({});
    const s = res.settings!;
    const opacityId = uid("sprite-opacity");
    let was = s.opacity;
    const opacity: HTMLInputElement = h("input", {
      id: opacityId,
      name: "opacity",
      type: "range",
      min: "0.3",
      max: "1",
      step: "0.05",
      value: String(s.opacity),
      onchange: () => {
        const before = was;
        was = Number(opacity.value);
        void save({ opacity: was }, opacity, () => (opacity.value = String((was = before))));
      },
    });
    return [
      toggle(s, "enabled", "Show the assistant's figure"),
      toggle(s, "showLabels", "Show its label (idle, thinking, waiting)"),
      choice(s, "size", "sprite_size", "Size"),
      choice(s, "idleStyle", "sprite_idle_style", "While idle"),
      choice(s, "animationSpeed", "sprite_animation_speed", "Animation speed"),
      h("div", { class: "field" }, h("label", { for: opacityId }, "Opacity"), opacity),
      h("p", { class: "hint" }, "The figure stays still when your system asks for reduced motion."),
      problem,
    ];
  });
  return h(
    "section",
    { class: "panel", "aria-labelledby": "settings-sprite" },
    h("h2", { id: "settings-sprite" }, "Assistant figure"),
    region.el,
  );
}
