/**
 * `<consultation-form>`: what makes the server-rendered form of ./ConsultationForm.astro work.
 * It checks the answers with the function's own rules and shows each error beside its field;
 * sends the request (not sooner than a person could have filled the form in, which the function
 * checks) with the visit's first touch; then shows the confirmation and moves the focus to it, or
 * says why nothing was sent. The answers are read from the form when sent, so what a visitor typed
 * before the script ran counts too, and they are never cleared on a failure.
 */
import {
  HONEYPOT,
  LEAD_FIELDS,
  type LeadErrors,
  type LeadField,
  leadErrors,
  leadRequest,
} from "@advisor-accelerator/shared/lead.ts";
import { failureText, firstName, holdFor, type Outcome, sendLead, storedAttribution } from "./logic";

class ConsultationForm extends HTMLElement {
  #shownAt = 0;
  #busy = false;

  connectedCallback() {
    const form = this.querySelector("form");
    const button = form?.querySelector<HTMLButtonElement>('button[type="submit"]');
    if (!form || !button) return;
    this.#shownAt = performance.now();
    form.addEventListener("submit", (event) => {
      event.preventDefault();
      void this.#submit(form, button);
    });
    // A corrected answer loses its message.
    form.addEventListener("input", (event) => {
      const name = (event.target as HTMLInputElement).name as LeadField;
      if ((LEAD_FIELDS as readonly string[]).includes(name)) this.#showError(form, name, undefined);
    });
    button.disabled = false;
  }

  #field(form: HTMLFormElement, name: LeadField) {
    return form.elements.namedItem(name) as HTMLInputElement | HTMLSelectElement | HTMLTextAreaElement;
  }

  #showError(form: HTMLFormElement, name: LeadField, message: string | undefined) {
    const field = this.#field(form, name);
    const error = this.querySelector<HTMLElement>(`#${field.id}-error`);
    if (!error) return;
    error.textContent = message ?? "";
    error.hidden = !message;
    if (message) {
      field.setAttribute("aria-invalid", "true");
      field.setAttribute("aria-describedby", error.id);
    } else {
      field.removeAttribute("aria-invalid");
      field.removeAttribute("aria-describedby");
    }
  }

  /** Shows `errors` beside their fields (clearing the others) and focuses the first; false when there are some. */
  #showErrors(form: HTMLFormElement, errors: LeadErrors): boolean {
    for (const name of LEAD_FIELDS) this.#showError(form, name, errors[name]);
    const first = LEAD_FIELDS.find((name) => errors[name]);
    if (first) this.#field(form, first).focus();
    return !first;
  }

  #showFailure(failure: Extract<Outcome, { kind: "limited" | "failed" | "offline" }> | null) {
    const message = this.querySelector<HTMLElement>("[data-failure]");
    if (!message) return;
    message.hidden = !failure;
    message.textContent = failure
      ? `${failureText(failure)} Or email ${this.dataset.contact}: your answers are still in the form.`
      : "";
  }

  #setBusy(button: HTMLButtonElement, busy: boolean) {
    this.#busy = busy;
    button.disabled = busy;
    button.setAttribute("aria-busy", String(busy));
    const spinner = button.querySelector<HTMLElement>("[data-spinner]");
    if (spinner) spinner.hidden = !busy;
  }

  async #submit(form: HTMLFormElement, button: HTMLButtonElement) {
    if (this.#busy) return;
    const data = new FormData(form);
    const answers = Object.fromEntries(
      [...LEAD_FIELDS, HONEYPOT].map((name) => [name, String(data.get(name) ?? "")]),
    ) as Record<LeadField | typeof HONEYPOT, string>;
    this.#showFailure(null);
    if (!this.#showErrors(form, leadErrors(answers))) return;

    this.#setBusy(button, true);
    const elapsed = () => performance.now() - this.#shownAt;
    const hold = holdFor(elapsed());
    if (hold > 0) await new Promise((resolve) => setTimeout(resolve, hold));
    let storage: Storage | null = null;
    try {
      storage = window.sessionStorage;
    } catch {
      // Storage blocked: the request goes without its attribution.
    }
    const attribution = storedAttribution(this.dataset.attributionKey ?? "", storage);
    const outcome = await sendLead(
      this.dataset.functionUrl ?? "",
      leadRequest(answers, this.dataset.page ?? "", elapsed(), attribution),
    );
    this.#setBusy(button, false);
    if (outcome.kind === "sent") this.#confirm(answers.name, answers.email);
    else if (outcome.kind === "invalid") this.#showErrors(form, outcome.errors);
    else {
      if (outcome.kind !== "limited") console.error("The consultation request was not sent:", outcome.kind);
      this.#showFailure(outcome);
    }
  }

  #confirm(name: string, email: string) {
    const sent = this.querySelector<HTMLElement>('[data-view="sent"]');
    const form = this.querySelector<HTMLElement>('[data-view="form"]');
    if (!sent || !form) return;
    sent.querySelector("[data-first-name]")!.textContent = firstName(name);
    sent.querySelector("[data-email]")!.textContent = email.trim();
    form.hidden = true;
    sent.hidden = false;
    sent.querySelector<HTMLElement>("h2")?.focus();
  }
}

customElements.define("consultation-form", ConsultationForm);
