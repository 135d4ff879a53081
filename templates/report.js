// Filters by event kind and finding severity. It reads only the data
// attributes the renderer wrote; without it every event is shown.
(function () {
  var form = document.getElementById("filters");
  if (!form) return;
  form.hidden = false;
  function checked(name) {
    var on = [];
    form.querySelectorAll('input[data-filter="' + name + '"]').forEach(function (i) {
      if (i.checked) on.push(i.value);
    });
    return on;
  }
  function apply() {
    var kinds = checked("kind"), sevs = checked("sev");
    document.querySelectorAll("tr.ev, tr.ev-findings").forEach(function (tr) {
      var ks = (tr.dataset.kind || "").split(" ");
      var kindOk = ks.some(function (k) { return kinds.indexOf(k) >= 0; });
      var sevOk = sevs.indexOf(tr.dataset.sev) >= 0;
      tr.hidden = !(kindOk && sevOk);
    });
  }
  form.addEventListener("change", apply);
})();
