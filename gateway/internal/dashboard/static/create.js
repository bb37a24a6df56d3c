// Create a customer: every member of POST /api/v1/customers but the
// documents (attached on the customer's page once it exists), one to
// five addresses, and the API's complaints beside the fields they are
// about, with its suggestions for a misspelt state or LGA as buttons.
import { apiWith } from "./api.js";
import { h, field, busy, showError } from "./dom.js";

// The gazetteer's states (pkg/gazetteer), offered while typing; the API
// stays the judge and suggests the nearest names for anything else.
const states = ["Abia", "Adamawa", "Akwa Ibom", "Anambra", "Bauchi", "Bayelsa", "Benue", "Borno", "Cross River", "Delta", "Ebonyi",
  "Edo", "Ekiti", "Enugu", "FCT", "Gombe", "Imo", "Jigawa", "Kaduna", "Kano", "Katsina", "Kebbi", "Kogi", "Kwara", "Lagos", "Nasarawa",
  "Niger", "Ogun", "Ondo", "Osun", "Oyo", "Plateau", "Rivers", "Sokoto", "Taraba", "Yobe", "Zamfara"];
const loanTypes = [["", "None"], ["PERSONAL", "Personal"], ["BUSINESS", "Business"], ["DOCUMENT_VERIFICATION", "Document verification"],
  ["NEW_CUSTOMER", "New customer"]];
const MAX_ADDRESSES = 5;

export function view() {
  const text = (attrs = {}) => h("input", { type: "text", ...attrs });
  const personal = [
    ["firstName", "First name", text({ autocomplete: "off", required: true })],
    ["lastName", "Last name", text({ autocomplete: "off", required: true })],
    ["phone", "Phone", text({ type: "tel", inputmode: "tel", placeholder: "+2348031234567", required: true }), "+234 and 10 digits."],
    ["email", "Email (optional)", text({ type: "email" })],
    ["occupation", "Occupation (optional)", text()],
    ["bvn", "BVN (optional)", text({ inputmode: "numeric", maxlength: "11" }), "11 digits; stored encrypted, shown masked."],
    ["nin", "NIN (optional)", text({ inputmode: "numeric", maxlength: "11" }), "11 digits; stored encrypted, shown masked."],
    ["passportNumber", "Passport number (optional)", text()],
    ["loanId", "Loan reference (optional)", text()],
    ["loanType", "Loan type", h("select", {}, loanTypes.map(([v, l]) => h("option", { value: v }, l)))],
    ["relogReason", "Reason for a new record (optional)", h("textarea", { rows: "2" }),
      "Only to record again a customer whose phone, email or loan reference is already held."],
  ];
  const list = h("datalist", { id: "state-names" }, states.map((s) => h("option", { value: s })));
  const addresses = h("div", { id: "addresses" });
  const add = h("button", { type: "button", class: "secondary", id: "add-address", onclick: () => {
    addAddress(addresses, add);
  } }, "Add another address");
  addAddress(addresses, add);
  const submit = h("button", { type: "submit", id: "create-customer" }, "Create customer");
  const done = h("div", { id: "create-done", role: "status" });
  // One Idempotency-Key per submission: a double press or a retry after a
  // lost answer sends the same key and creates one customer; any change
  // to the form makes the next submission a new one.
  let key = crypto.randomUUID();
  const form = h("form", { class: "card", novalidate: true, oninput: () => { key = crypto.randomUUID(); }, onsubmit: (ev) => {
    ev.preventDefault();
    done.replaceChildren();
    busy(submit, form, async () => {
      form.lastError = null;
      try {
        const c = await apiWith("POST", "/customers", body(form), { "Idempotency-Key": key });
        key = crypto.randomUUID();
        done.replaceChildren(h("p", { class: "notice card" }, `Customer ${c.firstName} ${c.lastName} created; field verification has started. `,
          h("a", { href: `#/customers/${encodeURIComponent(c.id)}`, id: "created-link" }, "Open the customer")));
        done.querySelector("a").focus();
      } catch (e) {
        form.lastError = e; // for suggest, once busy has shown it
        throw e;
      } finally {
        setTimeout(() => suggest(form));
      }
    });
  } },
  h("fieldset", {}, h("legend", {}, "Customer"), personal.map(([name, label, input, hint]) => field("c-" + name, label, input, { name, hint }))),
  list, addresses, add, h("div", {}, submit));
  return [h("h1", { tabindex: "-1" }, "Create a customer"), form, done];
}

// addAddress appends an address fieldset, its members named as the API
// reports them (addresses[0].city), renumbered when one is removed.
function addAddress(box, add) {
  const members = [["label", "Label (optional)"], ["streetNumber", "Number (optional)"], ["streetName", "Street"], ["landmark", "Landmark (optional)"],
    ["city", "Town or city"], ["lga", "LGA (optional)"], ["state", "State"], ["country", "Country (optional)"], ["notes", "Notes for the agent (optional)"]];
  const set = h("fieldset", { class: "address" }, h("legend", {}),
    members.map(([m, label]) => {
      const input = m === "notes" ? h("textarea", { rows: "2" }) : h("input", { type: "text", list: m === "state" ? "state-names" : undefined });
      input.dataset.member = m;
      return field("", label, input);
    }),
    h("button", { type: "button", class: "secondary small remove", onclick: () => {
      set.remove();
      renumber(box, add);
      box.querySelector("input")?.focus();
    } }, "Remove this address"));
  box.append(set);
  renumber(box, add);
  set.querySelector("input").focus();
}

function renumber(box, add) {
  const sets = [...box.querySelectorAll("fieldset.address")];
  sets.forEach((set, i) => {
    set.querySelector("legend").textContent = `Address ${i + 1}`;
    set.querySelector(".remove").hidden = sets.length === 1;
    for (const input of set.querySelectorAll("[data-member]")) {
      const id = `a${i}-${input.dataset.member}`;
      const wrap = input.closest(".field");
      wrap.querySelector("label").htmlFor = id;
      wrap.querySelector(".error").id = id + "-err";
      input.id = id;
      input.dataset.field = `addresses[${i}].${input.dataset.member}`;
      input.setAttribute("aria-describedby", id + "-err");
    }
  });
  add.hidden = sets.length >= MAX_ADDRESSES;
}

// body is the request: empty fields are left out (the API's "absent").
function body(form) {
  const out = {};
  for (const input of form.querySelectorAll("[data-field]")) {
    const v = input.value.trim();
    if (!v) continue;
    const m = /^addresses\[(\d+)\]\.(\w+)$/.exec(input.dataset.field);
    if (m) {
      out.addresses = out.addresses || [];
      (out.addresses[m[1]] = out.addresses[m[1]] || {})[m[2]] = v;
    } else out[input.dataset.field] = v;
  }
  if (out.addresses) out.addresses = [...out.addresses].map((a) => a || {});
  return out;
}

// suggest adds the API's suggestions (a misspelt state) as buttons under
// the field's message; pressing one puts the name in the field.
function suggest(form) {
  const err = form.lastError;
  if (!err) return;
  for (const d of err.details || []) {
    if (!d.suggestions || !d.suggestions.length) continue;
    const input = form.querySelector(`[data-field="${CSS.escape(d.field)}"]`);
    if (!input) continue;
    const slot = document.getElementById(input.id + "-err");
    slot.append(". Did you mean: ", ...d.suggestions.slice(0, 3).map((s) => h("button", { type: "button", class: "link suggestion", onclick: () => {
      input.value = s;
      input.removeAttribute("aria-invalid");
      slot.textContent = "";
      input.focus();
    } }, s)), "?");
  }
}
