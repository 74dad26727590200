// The rules of Remmi Demmi in five languages, as the rules page shows them
// (static/js/rules.js): pictures are card lists shared by every language; a
// section's "figures" are captions, by picture. The text after `export default`
// is plain JSON, so that tests can read it without JavaScript.
export default {
  "pictures": {
    "demmi": {
      "cards": [
        "OR1",
        "OJ2",
        "OL3"
      ],
      "ok": true
    },
    "not_demmi": {
      "cards": [
        "OR4",
        "PJ1",
        "GL2"
      ],
      "ok": false
    },
    "remmi": {
      "cards": [
        "OR1",
        "OR2",
        "OR3",
        "OR4",
        "OR5",
        "OJ1",
        "OJ2",
        "OJ3",
        "OJ4"
      ],
      "ok": true
    },
    "not_remmi": {
      "cards": [
        "OR1",
        "OR2",
        "OR3",
        "OJ1",
        "OJ2",
        "OJ3",
        "OL1",
        "OL2",
        "OL3"
      ],
      "ok": false
    }
  },
  "en": {
    "title": "Remmi Demmi",
    "intro": "A fast trading game for 4 to 9 players. Everybody trades at once while the timer runs. Collect nine cards that make a Remmi and call Remmi-Demmi! before the point men are gone.",
    "sections": [
      {
        "id": "cards",
        "title": "The cards",
        "text": [
          "Cards come in three colours (orange, purple, green) and show one of three figures (running, jumping, lying).",
          "Everyone gets nine cards, ten with four players. Look at them, then the dealer starts the timer: slow or fast."
        ]
      },
      {
        "id": "trading",
        "title": "Trading",
        "text": [
          "While the timer runs, everybody trades at the same time. Offer some of your cards face down; when another player offers the same number, you swap.",
          "You should offer a Demmi: cards that are all the same colour, or all the same figure. Whoever receives cards that are not a Demmi may send them back."
        ],
        "figures": {
          "demmi": "A Demmi: all orange",
          "not_demmi": "Not a Demmi: neither one colour nor one figure"
        }
      },
      {
        "id": "remmi",
        "title": "The Remmi",
        "text": [
          "A Remmi is nine cards of one colour showing at most two figures, or nine cards of one figure in at most two colours."
        ],
        "figures": {
          "remmi": "A Remmi: nine orange, running and jumping only. Call Remmi-Demmi!",
          "not_remmi": "Not a Remmi: orange, but all three figures"
        }
      },
      {
        "id": "claim",
        "title": "Remmi-Demmi!",
        "text": [
          "When you hold a Remmi, call Remmi-Demmi! and take the highest point man left: 4, then 3, then 2 points (with four players only 4 and 3). You stop trading.",
          "The round ends when every point man is taken or the timer runs out."
        ]
      },
      {
        "id": "check",
        "title": "The check",
        "text": [
          "Then every claim is shown. A real Remmi keeps its point man; a wrong one scores -5.",
          "A game is seven rounds and the most points wins. A tie for the lead plays another round."
        ]
      }
    ]
  },
  "id": {
    "title": "Remmi Demmi",
    "intro": "Permainan tukar kartu yang cepat untuk 4 sampai 9 pemain. Semua pemain bertukar kartu bersamaan selama waktu berjalan. Kumpulkan sembilan kartu yang menjadi Remmi dan serukan Remmi-Demmi! sebelum poinnya habis.",
    "sections": [
      {
        "id": "cards",
        "title": "Kartu",
        "text": [
          "Kartu punya tiga warna (oranye, ungu, hijau) dan satu dari tiga gambar orang (berlari, melompat, berbaring).",
          "Setiap pemain dapat sembilan kartu, sepuluh kalau bermain berempat. Lihat kartumu, lalu pembagi kartu menyalakan waktu: lambat atau cepat."
        ]
      },
      {
        "id": "trading",
        "title": "Bertukar kartu",
        "text": [
          "Selama waktu berjalan, semua pemain bertukar kartu bersamaan. Tawarkan beberapa kartu dalam keadaan tertutup; kalau ada pemain lain yang menawarkan jumlah yang sama, kartu kalian ditukar.",
          "Yang ditawarkan sebaiknya Demmi: kartu yang semuanya sewarna, atau semuanya bergambar sama. Siapa yang menerima kartu yang bukan Demmi boleh mengembalikannya."
        ],
        "figures": {
          "demmi": "Demmi: semuanya oranye",
          "not_demmi": "Bukan Demmi: warnanya beda dan gambarnya beda"
        }
      },
      {
        "id": "remmi",
        "title": "Remmi",
        "text": [
          "Remmi adalah sembilan kartu satu warna dengan paling banyak dua gambar, atau sembilan kartu satu gambar dengan paling banyak dua warna."
        ],
        "figures": {
          "remmi": "Remmi: sembilan oranye, hanya berlari dan melompat. Serukan Remmi-Demmi!",
          "not_remmi": "Bukan Remmi: oranye, tapi ada tiga gambar"
        }
      },
      {
        "id": "claim",
        "title": "Remmi-Demmi!",
        "text": [
          "Kalau kamu memegang Remmi, serukan Remmi-Demmi! dan ambil poin tertinggi yang tersisa: 4, lalu 3, lalu 2 (kalau berempat hanya 4 dan 3). Kamu berhenti bertukar kartu.",
          "Ronde selesai kalau semua poin sudah diambil atau waktunya habis."
        ]
      },
      {
        "id": "check",
        "title": "Pemeriksaan",
        "text": [
          "Lalu semua Remmi yang diserukan dibuka. Remmi yang benar tetap mendapat poinnya; yang salah mendapat -5.",
          "Satu permainan tujuh ronde dan poin terbanyak menang. Kalau ada yang seri di posisi teratas, dimainkan satu ronde lagi."
        ]
      }
    ]
  },
  "fr": {
    "title": "Remmi Demmi",
    "intro": "Un jeu d'échange rapide pour 4 à 9 joueurs. Tout le monde échange en même temps pendant que le minuteur tourne. Réunissez neuf cartes qui forment un Remmi et criez Remmi-Demmi ! avant qu'il ne reste plus de bonshommes à points.",
    "sections": [
      {
        "id": "cards",
        "title": "Les cartes",
        "text": [
          "Les cartes sont de trois couleurs (orange, violet, vert) et montrent l'un de trois personnages (qui court, qui saute, allongé).",
          "Chacun reçoit neuf cartes, dix à quatre joueurs. Regardez-les, puis le donneur lance le minuteur : lent ou rapide."
        ]
      },
      {
        "id": "trading",
        "title": "Les échanges",
        "text": [
          "Tant que le minuteur tourne, tout le monde échange en même temps. Proposez quelques cartes face cachée ; quand un autre joueur en propose autant, vous les échangez.",
          "Proposez de préférence un Demmi : des cartes toutes de la même couleur, ou toutes avec le même personnage. Qui reçoit des cartes qui ne forment pas un Demmi peut les renvoyer."
        ],
        "figures": {
          "demmi": "Un Demmi : tout en orange",
          "not_demmi": "Pas un Demmi : ni une seule couleur, ni un seul personnage"
        }
      },
      {
        "id": "remmi",
        "title": "Le Remmi",
        "text": [
          "Un Remmi, ce sont neuf cartes d'une seule couleur avec au plus deux personnages, ou neuf cartes d'un seul personnage en au plus deux couleurs."
        ],
        "figures": {
          "remmi": "Un Remmi : neuf orange, seulement qui court et qui saute. Criez Remmi-Demmi !",
          "not_remmi": "Pas un Remmi : tout orange, mais les trois personnages"
        }
      },
      {
        "id": "claim",
        "title": "Remmi-Demmi !",
        "text": [
          "Quand vous avez un Remmi, criez Remmi-Demmi ! et prenez le plus gros bonhomme à points qui reste : 4, puis 3, puis 2 points (à quatre joueurs, seulement 4 et 3). Vous arrêtez d'échanger.",
          "La manche se termine quand tous les bonshommes sont pris ou que le minuteur arrive à zéro."
        ]
      },
      {
        "id": "check",
        "title": "La vérification",
        "text": [
          "Toutes les annonces sont alors montrées. Un vrai Remmi garde son bonhomme ; une fausse annonce coûte 5 points.",
          "Une partie dure sept manches et le plus de points gagne. En cas d'égalité en tête, on joue une manche de plus."
        ]
      }
    ]
  },
  "nb": {
    "title": "Remmi Demmi",
    "intro": "Et raskt byttespill for 4 til 9 spillere. Alle bytter samtidig mens klokka går. Samle ni kort som blir en Remmi, og rop Remmi-Demmi! før poengmennene er tatt.",
    "sections": [
      {
        "id": "cards",
        "title": "Kortene",
        "text": [
          "Kortene har tre farger (oransje, lilla, grønn) og viser én av tre figurer (løpende, hoppende, liggende).",
          "Alle får ni kort, ti når dere er fire. Se på dem, så starter giveren klokka: sakte eller raskt."
        ]
      },
      {
        "id": "trading",
        "title": "Bytting",
        "text": [
          "Mens klokka går, bytter alle samtidig. Tilby noen av kortene dine med bildesiden ned; når en annen spiller tilbyr like mange, bytter dere.",
          "Du bør tilby en Demmi: kort som alle har samme farge, eller alle samme figur. Den som får kort som ikke er en Demmi, kan sende dem tilbake."
        ],
        "figures": {
          "demmi": "En Demmi: alle oransje",
          "not_demmi": "Ikke en Demmi: verken én farge eller én figur"
        }
      },
      {
        "id": "remmi",
        "title": "Remmien",
        "text": [
          "En Remmi er ni kort i én farge med høyst to figurer, eller ni kort med én figur i høyst to farger."
        ],
        "figures": {
          "remmi": "En Remmi: ni oransje, bare løpende og hoppende. Rop Remmi-Demmi!",
          "not_remmi": "Ikke en Remmi: oransje, men alle tre figurene"
        }
      },
      {
        "id": "claim",
        "title": "Remmi-Demmi!",
        "text": [
          "Når du har en Remmi, roper du Remmi-Demmi! og tar den høyeste poengmannen som er igjen: 4, så 3, så 2 poeng (med fire spillere bare 4 og 3). Du slutter å bytte.",
          "Runden er over når alle poengmennene er tatt eller klokka har gått ut."
        ]
      },
      {
        "id": "check",
        "title": "Kontrollen",
        "text": [
          "Så vises alle ropene. En ekte Remmi beholder poengmannen; et feil rop gir -5.",
          "Et spill er sju runder, og flest poeng vinner. Står flere likt på topp, spilles en runde til."
        ]
      }
    ]
  },
  "sr": {
    "title": "Remmi Demmi",
    "intro": "Brza igra razmene za 4 do 9 igrača. Svi menjaju karte u isto vreme dok sat otkucava. Skupi devet karata koje čine Remmi i vikni Remmi-Demmi! pre nego što nestanu čovečuljci sa bodovima.",
    "sections": [
      {
        "id": "cards",
        "title": "Karte",
        "text": [
          "Karte su u tri boje (narandžasta, ljubičasta, zelena) i na svakoj je jedna od tri figure (trči, skače, leži).",
          "Svako dobija devet karata, deset kad igraju četvoro. Pogledaj ih, pa onaj koji deli pokreće sat: sporo ili brzo."
        ]
      },
      {
        "id": "trading",
        "title": "Razmena",
        "text": [
          "Dok sat ide, svi menjaju u isto vreme. Ponudi nekoliko karata licem nadole; kad drugi igrač ponudi isto toliko, menjate se.",
          "Trebalo bi da nudiš Demmi: karte koje su sve iste boje ili sve sa istom figurom. Ko dobije karte koje nisu Demmi, može da ih vrati."
        ],
        "figures": {
          "demmi": "Demmi: sve narandžaste",
          "not_demmi": "Nije Demmi: ni ista boja ni ista figura"
        }
      },
      {
        "id": "remmi",
        "title": "Remmi",
        "text": [
          "Remmi je devet karata jedne boje sa najviše dve figure, ili devet karata jedne figure u najviše dve boje."
        ],
        "figures": {
          "remmi": "Remmi: devet narandžastih, samo trči i skače. Vikni Remmi-Demmi!",
          "not_remmi": "Nije Remmi: narandžaste, ali sa sve tri figure"
        }
      },
      {
        "id": "claim",
        "title": "Remmi-Demmi!",
        "text": [
          "Kad imaš Remmi, vikni Remmi-Demmi! i uzmi najvećeg preostalog čovečuljka sa bodovima: 4, pa 3, pa 2 boda (kad igraju četvoro samo 4 i 3). Više ne menjaš karte.",
          "Runda se završava kad su svi čovečuljci uzeti ili kad sat istekne."
        ]
      },
      {
        "id": "check",
        "title": "Provera",
        "text": [
          "Tada se pokažu sve prijave. Pravi Remmi zadržava čovečuljka; pogrešna prijava donosi -5.",
          "Partija traje sedam rundi i pobeđuje najviše bodova. Ako je više igrača izjednačeno na vrhu, igra se još jedna runda."
        ]
      }
    ]
  }
};
