// The rules of Traditional Remi in five languages, as the rules page shows them
// (static/js/rules.js): pictures are card lists shared by every language; a
// section's "figures" are captions, by picture. The text after `export default`
// is plain JSON, so that tests can read it without JavaScript.
export default {
  "pictures": {
    "run": {
      "cards": [
        "QD",
        "KD",
        "AD"
      ],
      "ok": true
    },
    "set": {
      "cards": [
        "7S",
        "7H",
        "7C",
        "7D"
      ],
      "ok": true
    },
    "bad": {
      "cards": [
        "KS",
        "AS",
        "2S"
      ],
      "ok": false
    }
  },
  "en": {
    "title": "Traditional Remi",
    "intro": "Two decks, 2 to 4 players. Get rid of your cards in runs and sets: whatever is still in your hand when someone goes out counts against you. The lowest total wins.",
    "sections": [
      {
        "id": "deal",
        "title": "The deal",
        "text": [
          "104 cards: two decks of 52 without jokers, so every card exists twice. Ten cards each; one card face up starts the discard pile, the rest is the stock.",
          "Card values: 2 to 10 their number, jack, queen and king 10, ace 11."
        ]
      },
      {
        "id": "melds",
        "title": "Runs and sets",
        "text": [
          "A run is three or more cards of one suit in a row. The ace is low (A-2-3) or high (Q-K-A), but a run does not go round the corner: K-A-2 is not a run.",
          "A set is three or four cards of one rank, all of different suits."
        ],
        "figures": {
          "run": "A run: queen, king and ace of diamonds",
          "set": "A set: four sevens",
          "bad": "Not a run: it goes round the corner"
        }
      },
      {
        "id": "turn",
        "title": "Your turn",
        "text": [
          "Draw the top card of the stock or of the discard pile.",
          "Lay down as many melds as you like and lay off cards on any meld on the table.",
          "End with one discard. When the stock runs out, the discard pile under its top card is shuffled into a new stock."
        ]
      },
      {
        "id": "end",
        "title": "Winning a deal",
        "text": [
          "You win the deal by melding or laying off all your cards but one, then discarding that last card.",
          "Everyone else takes the value of the cards left in their hand as penalty points.",
          "Hunt: if you lay your whole hand down in one turn, without having melded before, everyone else takes 25 more."
        ]
      },
      {
        "id": "match",
        "title": "The match",
        "text": [
          "A match is 5 deals. Penalties add up, and the lowest total wins.",
          "With a stake, the winner takes at least 75% of the pot; the rest goes to players who finished less than 80 points behind, the closer the more."
        ]
      }
    ]
  },
  "id": {
    "title": "Remi Tradisional",
    "intro": "Dua set kartu, 2 sampai 4 pemain. Habiskan kartumu dalam seri dan set: kartu yang masih di tanganmu saat ada pemain yang habis menjadi poin penalti. Total terendah menang.",
    "sections": [
      {
        "id": "deal",
        "title": "Pembagian kartu",
        "text": [
          "104 kartu: dua set 52 kartu tanpa joker, jadi setiap kartu ada dua. Masing-masing dapat sepuluh kartu; satu kartu dibuka untuk memulai tumpukan buangan, sisanya menjadi tumpukan.",
          "Nilai kartu: 2 sampai 10 sesuai angkanya, Jack, Queen dan King 10, As 11."
        ]
      },
      {
        "id": "melds",
        "title": "Seri dan set",
        "text": [
          "Seri adalah tiga kartu atau lebih dengan bunga yang sama dan berurutan. As bisa rendah (As-2-3) atau tinggi (Q-K-As), tapi seri tidak boleh berputar: K-As-2 bukan seri.",
          "Set adalah tiga atau empat kartu dengan angka yang sama, semuanya berbeda bunga."
        ],
        "figures": {
          "run": "Seri: Queen, King dan As wajik",
          "set": "Set: empat kartu 7",
          "bad": "Bukan seri: berputar dari King ke 2"
        }
      },
      {
        "id": "turn",
        "title": "Giliranmu",
        "text": [
          "Ambil kartu teratas dari tumpukan atau dari tumpukan buangan.",
          "Turunkan kombinasi sebanyak yang kamu mau dan tempelkan kartu ke kombinasi mana pun di meja.",
          "Akhiri dengan membuang satu kartu. Kalau tumpukan habis, tumpukan buangan (kecuali kartu teratasnya) dikocok menjadi tumpukan baru."
        ]
      },
      {
        "id": "end",
        "title": "Memenangkan ronde",
        "text": [
          "Kamu menang ronde kalau semua kartumu kecuali satu sudah diturunkan atau ditempel, lalu kartu terakhir itu kamu buang.",
          "Pemain lain mendapat nilai kartu yang tersisa di tangannya sebagai poin penalti.",
          "Hunt: kalau kamu menurunkan seluruh kartu dalam satu giliran tanpa pernah menurunkan kartu sebelumnya, pemain lain mendapat tambahan 25."
        ]
      },
      {
        "id": "match",
        "title": "Permainan",
        "text": [
          "Satu permainan 5 ronde. Penalti dijumlahkan, dan total terendah menang.",
          "Kalau ada taruhan, pemenang mendapat paling sedikit 75% dari pot; sisanya dibagi untuk pemain yang tertinggal kurang dari 80 poin, makin dekat makin banyak."
        ]
      }
    ]
  },
  "fr": {
    "title": "Rami traditionnel",
    "intro": "Deux jeux, de 2 à 4 joueurs. Débarrassez-vous de vos cartes en suites et en brelans : ce qui vous reste en main quand quelqu'un sort compte contre vous. Le plus petit total gagne.",
    "sections": [
      {
        "id": "deal",
        "title": "La donne",
        "text": [
          "104 cartes : deux jeux de 52 sans joker, donc chaque carte existe en double. Dix cartes chacun ; une carte retournée commence la défausse, le reste forme la pioche.",
          "Valeur des cartes : du 2 au 10 leur valeur, valet, dame et roi 10, as 11."
        ]
      },
      {
        "id": "melds",
        "title": "Suites et brelans",
        "text": [
          "Une suite, ce sont trois cartes ou plus de la même couleur qui se suivent. L'as est bas (A-2-3) ou haut (D-R-A), mais une suite ne fait pas le tour : R-A-2 n'est pas une suite.",
          "Un brelan ou un carré, ce sont trois ou quatre cartes de même valeur, toutes de couleurs différentes."
        ],
        "figures": {
          "run": "Une suite : dame, roi et as de carreau",
          "set": "Un carré : quatre 7",
          "bad": "Pas une suite : elle fait le tour"
        }
      },
      {
        "id": "turn",
        "title": "Votre tour",
        "text": [
          "Prenez la carte du dessus de la pioche ou de la défausse.",
          "Posez autant de combinaisons que vous voulez et ajoutez des cartes à n'importe quelle combinaison sur la table.",
          "Terminez en défaussant une carte. Quand la pioche est vide, la défausse, sauf sa carte du dessus, est mélangée pour faire une nouvelle pioche."
        ]
      },
      {
        "id": "end",
        "title": "Gagner une donne",
        "text": [
          "Vous gagnez la donne en posant ou en ajoutant toutes vos cartes sauf une, puis en défaussant cette dernière carte.",
          "Les autres joueurs prennent la valeur des cartes restées dans leur main en points de pénalité.",
          "Chasse : si vous posez toute votre main en un seul tour sans avoir rien posé avant, les autres prennent 25 de plus."
        ]
      },
      {
        "id": "match",
        "title": "La partie",
        "text": [
          "Une partie dure 5 donnes. Les pénalités s'additionnent et le plus petit total gagne.",
          "Avec une mise, le gagnant reçoit au moins 75 % du pot ; le reste va aux joueurs qui finissent à moins de 80 points de lui, d'autant plus qu'ils sont proches."
        ]
      }
    ]
  },
  "nb": {
    "title": "Tradisjonell remi",
    "intro": "To kortstokker, 2 til 4 spillere. Bli kvitt kortene i rekker og sett: det du har igjen på hånden når noen går ut, teller mot deg. Lavest sum vinner.",
    "sections": [
      {
        "id": "deal",
        "title": "Utdelingen",
        "text": [
          "104 kort: to kortstokker med 52 kort uten jokere, så hvert kort finnes to ganger. Ti kort hver; ett kort snus og starter kastebunken, resten er trekkbunken.",
          "Kortverdier: 2 til 10 tallverdien, knekt, dame og konge 10, ess 11."
        ]
      },
      {
        "id": "melds",
        "title": "Rekker og sett",
        "text": [
          "En rekke er tre eller flere kort i samme sort som følger hverandre. Esset er lavt (E-2-3) eller høyt (D-K-E), men en rekke går ikke rundt hjørnet: K-E-2 er ikke en rekke.",
          "Et sett er tre eller fire kort med samme verdi, alle i forskjellig sort."
        ],
        "figures": {
          "run": "En rekke: ruter dame, konge og ess",
          "set": "Et sett: fire syvere",
          "bad": "Ikke en rekke: den går rundt hjørnet"
        }
      },
      {
        "id": "turn",
        "title": "Din tur",
        "text": [
          "Trekk det øverste kortet i trekkbunken eller i kastebunken.",
          "Meld så mye du vil, og legg til kort på hva som helst som er meldt på bordet.",
          "Avslutt med å kaste ett kort. Når trekkbunken er tom, stokkes kastebunken, unntatt det øverste kortet, til en ny trekkbunke."
        ]
      },
      {
        "id": "end",
        "title": "Vinne en runde",
        "text": [
          "Du vinner runden ved å melde eller legge til alle kortene dine unntatt ett, og så kaste det siste kortet.",
          "Alle andre får verdien av kortene de har igjen på hånden som straffepoeng.",
          "Jakt: melder du hele hånden på én tur uten å ha meldt noe før, får alle andre 25 ekstra."
        ]
      },
      {
        "id": "match",
        "title": "Kampen",
        "text": [
          "En kamp er 5 runder. Straffepoengene legges sammen, og lavest sum vinner.",
          "Med innsats får vinneren minst 75 % av potten; resten går til spillere som endte mindre enn 80 poeng bak, mer jo nærmere de var."
        ]
      }
    ]
  },
  "sr": {
    "title": "Tradicionalni remi",
    "intro": "Dva špila, 2 do 4 igrača. Oslobodi se karata u nizovima i grupama: ono što ti ostane u ruci kad neko izađe, ide ti u minus. Pobeđuje najmanji zbir.",
    "sections": [
      {
        "id": "deal",
        "title": "Deljenje",
        "text": [
          "104 karte: dva špila od 52 bez džokera, pa svaka karta postoji dvaput. Svako dobija deset karata; jedna okrenuta karta započinje gomilu bačenih, ostatak je talon.",
          "Vrednost karata: od 2 do 10 po broju, žandar, dama i kralj 10, kec 11."
        ]
      },
      {
        "id": "melds",
        "title": "Nizovi i grupe",
        "text": [
          "Niz su tri ili više karata iste boje koje idu redom. Kec može biti nizak (kec-2-3) ili visok (dama-kralj-kec), ali niz ne ide ukrug: kralj-kec-2 nije niz.",
          "Grupa su tri ili četiri karte iste vrednosti, sve različitih boja."
        ],
        "figures": {
          "run": "Niz: karo dama, kralj i kec",
          "set": "Grupa: četiri sedmice",
          "bad": "Nije niz: ide ukrug"
        }
      },
      {
        "id": "turn",
        "title": "Tvoj potez",
        "text": [
          "Uzmi kartu sa vrha talona ili sa gomile bačenih.",
          "Spusti koliko god kombinacija hoćeš i dodaj karte na bilo koju kombinaciju na stolu.",
          "Završi tako što baciš jednu kartu. Kad se talon potroši, bačene karte, osim gornje, se promešaju u novi talon."
        ]
      },
      {
        "id": "end",
        "title": "Pobeda u deljenju",
        "text": [
          "Deljenje dobijaš kad spustiš ili dodaš sve karte osim jedne, pa tu poslednju baciš.",
          "Svi ostali dobijaju kaznene bodove u vrednosti karata koje su im ostale u ruci.",
          "Remi iz ruke: ako celu ruku spustiš u jednom potezu, a pre toga nisi ništa spustio, ostali dobijaju još po 25."
        ]
      },
      {
        "id": "match",
        "title": "Partija",
        "text": [
          "Partija traje 5 deljenja. Kazneni bodovi se sabiraju i pobeđuje najmanji zbir.",
          "Ako se igra u uloge, pobednik dobija najmanje 75% kase; ostatak ide igračima koji su završili manje od 80 bodova iza njega, više što su bliže."
        ]
      }
    ]
  }
};
