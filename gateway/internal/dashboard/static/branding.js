// White label (Enterprise): the display name, logo and accent colour the
// organization's reports carry, with a preview of a report's first page
// drawn from the values in the form as they are typed.
import { api, session } from "./api.js";
import { h, field, busy, when } from "./dom.js";

export async function view() {
  let current = null;
  try {
    current = await api("GET", "/reports/branding");
  } catch (e) {
    if (e.status !== 404) throw e;
  }
  const name = h("input", { type: "text", value: current ? current.displayName : "", maxlength: "80", required: true });
  const colour = h("input", { type: "color", value: (current && current.accentColour) || "#0b5394" });
  const logo = h("input", { type: "file", accept: "image/png,image/jpeg" });
  let logoData = null; // base64 of the picked file
  const remove = h("input", { type: "checkbox", id: "remove-logo" });
  const preview = h("div", { class: "report-preview", "aria-label": "Report preview", role: "img" });
  const draw = () => {
    const band = h("div", { class: "band" }, logoData ? h("img", { src: `data:${logo.files[0].type};base64,${logoData}`, alt: "" }) : null,
      h("span", {}, name.value || "Your organization"));
    band.style.background = colour.value;
    const heading = h("h4", {}, "Address 1: Verified");
    heading.style.color = colour.value;
    preview.setAttribute("aria-label", `Report preview: header in ${colour.value} with ${name.value || "your organization"}${logoData ? " and the logo" : ""}`);
    preview.replaceChildren(band, h("div", { class: "page" }, h("p", { class: "title" }, "KYC field verification report"),
      h("p", { class: "muted" }, `Prepared for ${name.value || "your organization"}`), heading,
      h("p", {}, "12 Adeola Odeku Street, Victoria Island, Lagos"), session.env === "test" && h("p", { class: "watermark" }, "SANDBOX")));
  };
  name.addEventListener("input", draw);
  colour.addEventListener("input", draw);
  logo.addEventListener("change", () => {
    const f = logo.files[0];
    if (!f) return;
    const r = new FileReader();
    r.onload = () => {
      logoData = String(r.result).split(",")[1];
      draw();
    };
    r.readAsDataURL(f);
  });
  draw();
  const status = h("p", { role: "status", id: "branding-status" });
  const save = h("button", { type: "submit", id: "save-branding" }, "Save");
  const form = h("form", { class: "card", onsubmit: (ev) => {
    ev.preventDefault();
    busy(save, form, async () => {
      // No file chosen keeps the saved logo; the box removes it.
      const body = { displayName: name.value, accentColour: colour.value };
      if (logoData) body.logo = logoData;
      else if (remove.checked) body.logo = null;
      const b = await api("PUT", "/reports/branding", body);
      status.textContent = `Saved ${when(b.updatedAt)}. Reports rendered from now on carry it.`;
    });
  } },
  field("brand-name", "Display name", name, { name: "displayName" }),
  field("brand-colour", "Accent colour", colour, { name: "accentColour" }),
  field("brand-logo", "Logo", logo, { name: "logo", hint: "PNG or JPEG, at most 256 KB and 2000 × 2000 px." +
    (current && current.hasLogo ? " Saving without choosing a file keeps the current logo." : "") }),
  current && current.hasLogo ? h("label", { class: "check" }, remove, " Remove the current logo") : null,
  save, status);
  return [h("h1", { tabindex: "-1" }, "White label"),
    h("p", {}, `Reports of ${session.env === "test" ? "sandbox" : "live"} customers carry these settings; set them for each environment.`),
    h("div", { class: "split" }, form, h("section", { class: "card", "aria-labelledby": "preview-title" },
      h("h2", { id: "preview-title" }, "Preview"), preview))];
}
