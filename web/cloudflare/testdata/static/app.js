document.getElementById("marker").textContent += " ok";
