// h builds elements without innerHTML, so a customer's name or a
// client's notes can never become markup.
export function h(tag, attrs, ...children) {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === undefined || v === null || v === false) continue;
    if (k.startsWith("on")) el.addEventListener(k.slice(2), v);
    else if (k === "value" || k === "checked" || k === "disabled") el[k] = v;
    else el.setAttribute(k, v === true ? "" : v);
  }
  el.append(...nodes(children));
  return el;
}

// nodes flattens what a screen returns, dropping the null, false and ""
// of parts that are not shown.
export function nodes(x) {
  return [x].flat(Infinity).filter((c) => c !== null && c !== undefined && c !== false && c !== "")
    .map((c) => (c instanceof Node ? c : String(c)));
}

// field is a labelled input; every control on the screens has a label.
export function field(id, label, input, hint) {
  input.id = id;
  if (hint) input.setAttribute("aria-describedby", id + "-hint");
  return [h("label", { for: id }, label), input, hint && h("div", { id: id + "-hint", class: "muted" }, hint)];
}
