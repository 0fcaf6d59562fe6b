// judgegraph label: keys for the labelling form. The page works without this script (radio
// buttons and submit buttons); the script adds the keys and, with `label --show-judge`, reveals the judge's scores once
// every metric has a label. It reads and writes only our own elements, never user text as markup.
(function () {
  "use strict";
  const form = document.getElementById("label-form");
  const scores = document.getElementById("judge-scores");
  const toggle = document.getElementById("toggle-scores");
  const note = document.getElementById("note");
  const metrics = form ? Array.from(form.querySelectorAll("fieldset.metric")) : [];
  let active = 0;

  function chosen(fieldset) { return fieldset.querySelector("input[type=radio]:checked"); }
  function answered() { return metrics.every(chosen); }
  function showActive() {
    metrics.forEach(function (fieldset, i) { fieldset.classList.toggle("active", i === active); });
  }
  function setScores(shown) {
    if (!scores) { return; }
    scores.hidden = !shown;
    if (toggle) { toggle.firstChild.textContent = shown ? "Hide the judge's scores " : "Show the judge's scores "; }
  }
  function afterChoice() {
    const next = metrics.findIndex(function (fieldset) { return !chosen(fieldset); });
    if (next >= 0) { active = next; }
    showActive();
    if (answered()) { setScores(true); document.body.dataset.answered = "1"; }
  }
  function submit(formId) {
    const target = document.getElementById(formId);
    if (target) { target.requestSubmit(); }
  }

  if (toggle) { toggle.addEventListener("click", function () { setScores(scores.hidden); }); }
  metrics.forEach(function (fieldset, i) {
    fieldset.addEventListener("change", function () { active = i; afterChoice(); });
  });
  if (form) {
    form.addEventListener("submit", function (event) {
      if (!answered()) {
        event.preventDefault();
        const missing = metrics.findIndex(function (fieldset) { return !chosen(fieldset); });
        active = missing; showActive();
        metrics[missing].classList.add("missing");
      }
    });
  }

  document.addEventListener("keydown", function (event) {
    if (event.ctrlKey || event.metaKey || event.altKey) { return; }
    if (event.target === note) {
      if (event.key === "Escape") { note.blur(); }
      return;
    }
    const key = event.key;
    if (key === "Enter") {
      if (event.target.tagName === "BUTTON") { return; }  // a focused button does what it says
      event.preventDefault();
      if (form) { form.requestSubmit(); }
      return;
    }
    if (key === "s") { event.preventDefault(); submit("skip-form"); return; }
    if (key === "u") { event.preventDefault(); submit("undo-form"); return; }
    if (key === "n" && note) { event.preventDefault(); note.focus(); return; }
    if (key === "v" && scores) { event.preventDefault(); setScores(scores.hidden); return; }
    if (!metrics.length) { return; }
    if (key === "ArrowDown" || key === "ArrowUp") {
      event.preventDefault();
      active = (active + (key === "ArrowDown" ? 1 : metrics.length - 1)) % metrics.length;
      showActive();
      return;
    }
    const radio = Array.from(metrics[active].querySelectorAll("input[type=radio]"))
      .find(function (input) { return input.dataset.key === key; });
    if (radio) {
      event.preventDefault();
      radio.checked = true;
      metrics[active].classList.remove("missing");
      afterChoice();
    }
  });
  showActive();
  document.body.dataset.labelReady = "1";
})();
