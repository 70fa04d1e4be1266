/*! lendhub support widget: a contact form that posts an enquiry.
 * Embed with:
 *   <script src="https://HUB/public/v1/support/widget.js" data-form="support-widget"
 *           data-dept="support" data-title="Contact us" defer></script>
 * No dependencies; renders inside a shadow root so the host page's styles and
 * the widget's never meet. The host page's origin must be listed in the hub's
 * `public.enquiry_origins`.
 */
(function () {
  "use strict";
  var script = document.currentScript;
  if (!script || !script.src) { return; }
  var base = new URL(".", script.src);
  var endpoint = new URL("../enquiries", base).href;
  var form = script.getAttribute("data-form") || "support-widget";
  var dept = script.getAttribute("data-dept");
  var title = script.getAttribute("data-title") || "Contact us";

  var MESSAGES = {
    consent_required: "Please tick the box so we can reply to you.",
    invalid_email: "Please check your email address.",
    form_required: "This form is misconfigured (no form name).",
    invalid_dept: "This form is misconfigured (unknown department).",
    payload_too_large: "Your message is too long.",
    request_body_too_large: "Your message is too long.",
    invalid_value_type: "Something in the form could not be sent.",
    rate_limited: "Too many messages from your network. Please try again in a minute."
  };

  function el(tag, attrs, children) {
    var node = document.createElement(tag);
    Object.keys(attrs || {}).forEach(function (k) { node.setAttribute(k, attrs[k]); });
    (children || []).forEach(function (c) {
      node.appendChild(typeof c === "string" ? document.createTextNode(c) : c);
    });
    return node;
  }

  var host = el("div", { "data-lendhub-widget": "" });
  var root = host.attachShadow({ mode: "open" });
  root.appendChild(el("link", { rel: "stylesheet", href: new URL("widget.css", base).href }));

  var open = el("button", { type: "button", "class": "lh-open", "aria-haspopup": "dialog" }, [title]);
  var status = el("p", { "class": "lh-status", role: "status", "aria-live": "polite" });
  var fields = {
    name: el("input", { name: "name", id: "lh-name", autocomplete: "name", required: "" }),
    email: el("input", { name: "email", id: "lh-email", type: "email", autocomplete: "email", required: "" }),
    message: el("textarea", { name: "message", id: "lh-message", rows: "4", required: "", maxlength: "4000" }),
    consent: el("input", { name: "consent", id: "lh-consent", type: "checkbox" })
  };
  var submit = el("button", { type: "submit", "class": "lh-submit" }, ["Send"]);
  var close = el("button", { type: "button", "class": "lh-close", "aria-label": "Close" }, ["\u00d7"]);
  var formEl = el("form", { "class": "lh-form", novalidate: "" }, [
    el("label", { "for": "lh-name" }, ["Your name"]), fields.name,
    el("label", { "for": "lh-email" }, ["Email"]), fields.email,
    el("label", { "for": "lh-message" }, ["How can we help?"]), fields.message,
    el("label", { "class": "lh-consent", "for": "lh-consent" }, [fields.consent,
      " I agree to be contacted about this enquiry."]),
    submit, status
  ]);
  var dialog = el("div", { "class": "lh-dialog", role: "dialog", "aria-modal": "true",
    "aria-labelledby": "lh-title", hidden: "" }, [
    el("div", { "class": "lh-head" }, [el("h2", { id: "lh-title" }, [title]), close]),
    formEl
  ]);
  root.appendChild(open);
  root.appendChild(dialog);

  function show(yes) {
    dialog.hidden = !yes;
    open.setAttribute("aria-expanded", yes ? "true" : "false");
    if (yes) { fields.name.focus(); } else { open.focus(); }
  }
  open.addEventListener("click", function () { show(true); });
  close.addEventListener("click", function () { show(false); });
  dialog.addEventListener("keydown", function (e) { if (e.key === "Escape") { show(false); } });

  function say(text, kind) {
    status.textContent = text;
    status.className = "lh-status lh-" + kind;
  }

  formEl.addEventListener("submit", function (e) {
    e.preventDefault();
    var body = {
      form: form,
      fields: {
        name: fields.name.value,
        email: fields.email.value,
        message: fields.message.value,
        consent: fields.consent.checked ? "yes" : "no",
        page: String(window.location.href).slice(0, 500)
      }
    };
    if (dept) { body.dept = dept; }
    submit.disabled = true;
    say("Sending\u2026", "pending");
    fetch(endpoint, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify(body)
    }).then(function (response) {
      return response.json().then(function (json) { return { ok: response.ok, json: json }; });
    }).then(function (r) {
      if (r.ok) {
        formEl.reset();
        say("Thank you. We have your message (reference " + r.json.id + ").", "ok");
      } else {
        var error = (r.json && r.json.error) || {};
        say(MESSAGES[error.code] || error.message || "Sorry, your message could not be sent.", "error");
        status.setAttribute("data-code", error.code || "");
      }
    }).catch(function () {
      say("Sorry, we could not reach the server. Please try again.", "error");
    }).then(function () { submit.disabled = false; });
  });

  function mount() { document.body.appendChild(host); }
  if (document.body) { mount(); } else { document.addEventListener("DOMContentLoaded", mount); }
})();
