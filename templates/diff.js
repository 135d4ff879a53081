(function () {
  "use strict";
  var box = document.getElementById("changes-only");
  var answer = document.getElementById("answer");
  if (!box || !answer) { return; }
  box.addEventListener("change", function () {
    answer.classList.toggle("changes-only", box.checked);
  });
}());
