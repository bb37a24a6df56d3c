// Attach a document to a customer: a file from the device (multipart) or
// a link, with the API's errors beside the fields. Mounted on the
// customer's page (customers.js).
import { apiWith } from "./api.js";
import { h, field, busy } from "./dom.js";

const types = [["ID_CARD", "ID card"], ["UTILITY_BILL", "Utility bill"], ["PROOF_OF_ADDRESS", "Proof of address"],
  ["PASSPORT_PHOTO", "Passport photo"], ["BANK_STATEMENT", "Bank statement"], ["CAC_CERTIFICATE", "CAC certificate"], ["OTHER", "Other"]];

export function attachForm(customerID, onDone) {
  const type = h("select", {}, types.map(([v, l]) => h("option", { value: v }, l)));
  const how = (value, label, checked) => h("label", { class: "check" }, h("input", { type: "radio", name: "attach-how", value, checked,
    onchange: () => { fileField.hidden = value !== "file"; linkFields.hidden = value !== "link"; } }), label);
  const fileInput = h("input", { type: "file", accept: "image/jpeg,image/png,image/webp,application/pdf" });
  const fileField = field("attach-file", "File", fileInput, { name: "file", hint: "JPEG, PNG, WebP or PDF, at most 10 MB." });
  const url = h("input", { type: "url", placeholder: "https://" });
  const name = h("input", { type: "text" });
  const mime = h("select", {}, ["application/pdf", "image/jpeg", "image/png", "image/webp"].map((m) => h("option", { value: m }, m)));
  const size = h("input", { type: "number", min: "1", inputmode: "numeric" });
  const linkFields = h("div", {}, field("attach-url", "Link to the file", url, { name: "fileUrl" }),
    field("attach-name", "File name", name, { name: "fileName" }), field("attach-mime", "File type", mime, { name: "fileType" }),
    field("attach-size", "Size in bytes", size, { name: "fileSize" }));
  linkFields.hidden = true;
  const submit = h("button", { type: "submit", id: "attach-document" }, "Attach document");
  const done = h("p", { role: "status", id: "attach-done" });
  let key = crypto.randomUUID();
  const form = h("form", { class: "card", id: "attach-form", oninput: () => { key = crypto.randomUUID(); }, onsubmit: (ev) => {
    ev.preventDefault();
    done.textContent = "";
    busy(submit, form, async () => {
      const path = `/customers/${encodeURIComponent(customerID)}/documents`;
      let d;
      if (!fileField.hidden) {
        if (!fileInput.files.length) throw Object.assign(new Error("Choose a file first"), { details: [{ field: "file", message: "is required" }] });
        const body = new FormData();
        body.append("documentType", type.value);
        body.append("file", fileInput.files[0]);
        d = await apiWith("POST", path, body, {});
      } else {
        d = await apiWith("POST", path, { documentType: type.value, fileUrl: url.value.trim(), fileName: name.value.trim(),
          fileType: mime.value, fileSize: Number(size.value) || 0 }, { "Idempotency-Key": key });
      }
      key = crypto.randomUUID();
      form.reset();
      fileField.hidden = false;
      linkFields.hidden = true;
      done.textContent = `Document attached: ${d.fileName || d.documentType}.`;
      if (onDone) onDone(d);
    });
  } }, h("h3", {}, "Attach a document"), field("attach-type", "Document type", type, { name: "documentType" }),
  h("fieldset", {}, h("legend", {}, "From"), how("file", "A file on this device", true), how("link", "A link", false)),
  fileField, linkFields, submit, done);
  return form;
}
